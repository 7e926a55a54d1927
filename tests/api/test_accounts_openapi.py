"""The OpenAPI document lists every accounts endpoint with its request and response models."""

from __future__ import annotations

ENDPOINTS = {
    ("post", "/auth/token/"): ("LoginIn", "TokenPairOut"),
    ("post", "/auth/token/refresh/"): ("RefreshIn", "AccessOut"),
    ("post", "/auth/token/verify/"): ("VerifyIn", "VerifyOut"),
    ("post", "/auth/logout/"): ("RefreshIn", "Message"),
    ("post", "/users/register/"): ("RegisterIn", "UserOut"),
    ("get", "/users/me/"): (None, "UserOut"),
    ("get", "/users/users/{user_id}/"): (None, "UserOut"),
    ("patch", "/users/users/{user_id}/"): ("UserUpdateIn", "UserOut"),
    ("get", "/users/profiles/{profile_id}/"): (None, "ProfileOut"),
    ("patch", "/users/profiles/{profile_id}/"): ("inline", "ProfileOut"),
    ("get", "/users/addresses/"): (None, "Page_AddressOut_"),
    ("post", "/users/addresses/"): ("AddressCreateIn", "AddressOut"),
    ("get", "/users/addresses/{address_id}/"): (None, "AddressOut"),
    ("patch", "/users/addresses/{address_id}/"): ("AddressIn", "AddressOut"),
    ("delete", "/users/addresses/{address_id}/"): (None, None),
    ("get", "/users/admin/users/"): (None, "Page_AdminUserOut_"),
    ("patch", "/users/admin/users/{user_id}/"): ("RoleIn", "AdminUserOut"),
}


def _ref(content: dict) -> str:
    return content["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]


def test_every_accounts_endpoint_is_documented_with_its_models(client):
    document = client.get("/api/openapi.json").json()
    schemas = document["components"]["schemas"]
    for (method, path), (request_model, response_model) in ENDPOINTS.items():
        operation = document["paths"][path][method]
        if request_model == "inline":
            content = operation["requestBody"]["content"]
            assert set(content) == {"application/json", "multipart/form-data"}
            assert set(content["application/json"]["schema"]["properties"]) == {"bio", "website"}
            assert content["multipart/form-data"]["schema"]["properties"]["profile_image"]["format"] == "binary"
        elif request_model:
            assert _ref(operation["requestBody"]["content"]) == request_model, path
            assert request_model in schemas
        else:
            assert "requestBody" not in operation, path
        success = next(code for code in operation["responses"] if code.startswith("2"))
        if response_model:
            assert _ref(operation["responses"][success]["content"]) == response_model, path
        else:
            assert success == "204"
        assert any(code.startswith("4") for code in operation["responses"]), path
    user = schemas["UserOut"]["properties"]
    assert {"id", "email", "role", "profile", "addresses", "date_of_birth"} <= set(user)
    assert "password" not in str(schemas["UserOut"]) and "password_hash" not in str(schemas)
    assert client.get("/api/docs").status_code == 200


def test_slashless_twins_are_not_listed_twice(client):
    paths = client.get("/api/openapi.json").json()["paths"]
    assert "/users/me" not in paths and "/auth/token" not in paths
