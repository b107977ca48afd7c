// Starts Swagger UI from a file (CSP forbids inline script).
window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({ url: root.dataset.specUrl, domNode: root, deepLinking: true });
});
