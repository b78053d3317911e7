"""The arena's IS-MCTS decisions in a process of their own, so that they replay the same.

OpenSpiel 2.0.2's IS-MCTS, seeded the same, does not choose the same card in two processes:
its choice depends on where its tables lie in memory (the order in which it visits a hash
table's entries does; docs/strength.md, *Reproducing*).  With address randomisation off, where
they lie still depends on everything the process allocated before, so one arena run's
IS-MCTS decisions depended on its Hard's.  This program takes that away: started with
address randomisation off and nothing in its memory but OpenSpiel, it forks a fresh child
for every decision, so every child starts from the same memory and a decision depends only
on the state, the seed and the number of simulations.

Run by :class:`engine.arena.IsmctsPlayer` (never imported): the source is passed with
``python -I -S -c``, with the directory holding ``pyspiel`` as its argument, so that it
starts the same from any checkout.  It first writes one line: ``1`` when address
randomisation is off in it, ``0`` when not.  Then for every line it reads, ``GAME SEED
SIMULATIONS ACTION ACTION …`` (the ``pyspiel.load_game`` string and the OpenSpiel actions
leading to the state), it writes a line with IS-MCTS's action (``-1`` if it failed) and the
CPU seconds the decision took.
"""

import os
import sys

ADDR_NO_RANDOMIZE = 0x0040000


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    import pyspiel

    with open("/proc/self/personality") as f:
        fixed = bool(int(f.read(), 16) & ADDR_NO_RANDOMIZE)
    out = sys.stdout.buffer
    out.write(b"1\n" if fixed else b"0\n")
    out.flush()
    games = {}
    for line in sys.stdin.buffer:
        name = line.split(b" ", 1)[0].decode()
        if name not in games:
            # loaded here, before any fork, so that every child after it starts alike
            games[name] = pyspiel.load_game(name)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                fields = line.split()
                seed = int(fields[1])
                state = games[name].new_initial_state()
                for a in fields[3:]:
                    state.apply_action(int(a))
                bot = pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 10.0, int(fields[2]), -1,
                                        pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
                os.write(w, b"%d" % bot.step(state))
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        answer = os.read(r, 64)
        os.close(r)
        _, status, usage = os.wait4(pid, 0)
        if status or not answer:
            answer = b"-1"
        out.write(b"%s %.6f\n" % (answer, usage.ru_utime + usage.ru_stime))
        out.flush()

if __name__ == "__main__":
    main()
