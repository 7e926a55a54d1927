"""Health and API-wide behaviour of the ASGI app."""


def test_health_answers_with_and_without_slash(client):
    for path in ("/api/health", "/api/health/"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.json() == {"status": "ok", "database": "ok"}


def test_unknown_api_path_is_a_json_404(client):
    response = client.get("/api/no-such-endpoint/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_openapi_document_is_served(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    assert "/health/" in response.json()["paths"]
    docs = client.get("/api/docs")
    assert docs.status_code == 200
    # Swagger UI comes from local files (the machine may have no internet).
    assert "/api/docs-assets/swagger-ui-bundle.js" in docs.text
    assert client.get("/api/docs-assets/swagger-ui-bundle.js").status_code == 200


def test_openapi_documents_400_not_422(client):
    document = client.get("/api/openapi.json").json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            assert "422" not in operation["responses"], f"{method} {path}"
    register = document["paths"]["/users/register/"]["post"]
    assert "400" in register["responses"]
