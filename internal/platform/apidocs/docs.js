// Starts Swagger UI on the served description (Larder's docs page).
window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/v1/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    docExpansion: "none",
    defaultModelsExpandDepth: -1,
    displayRequestDuration: true,
    filter: true,
    tryItOutEnabled: false
  });
};
