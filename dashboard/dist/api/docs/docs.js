// Starts Swagger UI on the admin API's own OpenAPI document. A file, not an inline script, so the
// page keeps the dashboard's CSP. No validator: it would load a badge from validator.swagger.io.
window.ui = window.SwaggerUIBundle({
  url: "/api/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
});
