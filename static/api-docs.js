// The API docs page: the vendored Swagger UI (static/vendor/swagger-ui-dist-*) on our
// OpenAPI schema.  A file rather than an inline script, so the page keeps script-src 'self'.
(function () {
  "use strict";
  const root = document.getElementById("swagger-ui");
  if (!root || !window.SwaggerUIBundle) return;
  window.SwaggerUIBundle({
    url: root.dataset.schema,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
})();
