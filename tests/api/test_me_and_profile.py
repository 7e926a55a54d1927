"""GET /users/me/, PATCH /users/users/{id}/ and /users/profiles/{id}/ (JSON and image upload)."""

from __future__ import annotations

import io
import os

import pytest
from PIL import Image
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import PASSWORD, auth_headers
from ..builders.accounts import bearer, expired_access_token, image_bytes, profile_id_of, reload_user, stale_headers

ACCOUNT_CHANGES = {
    "email": "new@example.com",
    "phonenumber": "0241112222",
    "username": "newname",
    "first_name": "Kofi",
    "last_name": "Boateng",
    "date_of_birth": "1990-01-31",
    "gender": "male",
}


def _png_upload(data: bytes | None = None, name: str = "avatar.png", mime: str = "image/png"):
    return {"profile_image": (name, data if data is not None else image_bytes(), mime)}


def _upload(client, user, files, data=None, profile_id=None):
    profile_id = profile_id or profile_id_of(user)
    return client.patch(f"/api/users/profiles/{profile_id}/", files=files, data=data, headers=auth_headers(user))


# --- /users/me/ ----------------------------------------------------------------------------------


def test_me_returns_the_whole_account(client, make_user):
    user = make_user(phonenumber="0240000000", gender="other")
    response = client.get("/api/users/me/", headers=auth_headers(user))
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "id",
        "email",
        "username",
        "first_name",
        "last_name",
        "phonenumber",
        "date_of_birth",
        "gender",
        "role",
        "profile",
        "addresses",
    }
    assert body["id"] == user.id and body["phonenumber"] == "0240000000" and body["gender"] == "other"
    assert body["profile"] == {"id": profile_id_of(user), "bio": None, "website": None, "profile_image": None}
    assert client.get("/api/users/me", headers=auth_headers(user)).status_code == 200


@pytest.mark.parametrize("headers", [{}, stale_headers(), {"Authorization": "Bearer "}, {"Authorization": "Token x"}])
def test_me_without_a_valid_token_is_401(client, headers):
    response = client.get("/api/users/me/", headers=headers)
    assert response.status_code == 401
    assert response.json()["detail"]


def test_me_with_an_expired_token_is_401(client, customer):
    response = client.get("/api/users/me/", headers=bearer(expired_access_token(customer)))
    assert response.status_code == 401
    assert response.json() == {"detail": "Token is invalid or expired"}


# --- PATCH /users/users/{id}/ --------------------------------------------------------------------------


def test_user_changes_their_own_account(client, customer):
    # A new email needs the current password (issue 32).
    changes = {**ACCOUNT_CHANGES, "current_password": "secret123"}
    response = client.patch(f"/api/users/users/{customer.id}/", json=changes, headers=auth_headers(customer))
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in ACCOUNT_CHANGES} == ACCOUNT_CHANGES
    me = client.get("/api/users/me/", headers=auth_headers(customer)).json()
    assert me["email"] == "new@example.com" and me["date_of_birth"] == "1990-01-31"


def test_absent_fields_stay_and_the_slashless_path_works(client, customer):
    url = f"/api/users/users/{customer.id}"
    response = client.patch(url, json={"first_name": "Esi"}, headers=auth_headers(customer))
    assert response.status_code == 200
    assert response.json()["first_name"] == "Esi"
    assert response.json()["last_name"] == customer.last_name


def test_role_is_ignored_when_patching_a_user(client, customer):
    response = client.patch(
        f"/api/users/users/{customer.id}/", json={"role": "admin", "first_name": "Yaw"}, headers=auth_headers(customer)
    )
    assert response.status_code == 200
    assert response.json()["role"] == "customer"
    assert reload_user(customer.id).role == "customer"


def test_nested_profile_is_updated(client, customer):
    response = client.patch(
        f"/api/users/users/{customer.id}/",
        json={"profile": {"bio": "  Deal hunter ", "website": "https://example.com/me"}},
        headers=auth_headers(customer),
    )
    assert response.status_code == 200
    assert response.json()["profile"]["bio"] == "Deal hunter"
    assert response.json()["profile"]["website"] == "https://example.com/me"


def test_another_users_account_is_not_found_for_a_customer(client, make_user):
    me, other = make_user(), make_user()
    for method in ("get", "patch"):
        kwargs = {"json": {"first_name": "Hacked"}} if method == "patch" else {}
        response = getattr(client, method)(f"/api/users/users/{other.id}/", headers=auth_headers(me), **kwargs)
        assert response.status_code == 404
    assert reload_user(other.id).first_name != "Hacked"


def test_admin_may_patch_anyone(client, admin_headers, customer):
    response = client.patch(f"/api/users/users/{customer.id}/", json={"last_name": "Osei"}, headers=admin_headers)
    assert response.status_code == 200
    assert reload_user(customer.id).last_name == "Osei"
    assert client.get(f"/api/users/users/{customer.id}/", headers=admin_headers).status_code == 200
    missing = client.patch("/api/users/users/no-such-id/", json={"last_name": "X"}, headers=admin_headers)
    assert missing.status_code == 404


def test_patching_a_user_without_a_token_is_401(client, customer):
    response = client.patch(f"/api/users/users/{customer.id}/", json={"first_name": "X"}, headers=stale_headers())
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"first_name": "   "}, "first_name", "First name is required"),
        ({"phonenumber": ""}, "phonenumber", "Phone number is required"),
        ({"email": "bad"}, "email", "Please enter a valid email"),
        ({"gender": "robot"}, "gender", "Gender must be male, female or other"),
        ({"date_of_birth": "2999-01-01"}, "date_of_birth", "Date of birth must be in the past"),
        ({"profile": {"website": "not a url"}}, "profile.website", "Enter a valid URL."),
        ({"profile": {"website": "https://ama.example.com/\tshop"}}, "profile.website", "Enter a valid URL."),
        ({"profile": {"website": "https://example.com/\u202emoc.evil"}}, "profile.website",
         "Must not contain control characters."),
        ({"profile": {"bio": "Hi\u200b"}}, "profile.bio", "Must not contain control characters."),
        ({"last_name": "Mensah\u202e"}, "last_name", "Must not contain control characters."),
        ({"username": "\uff41ma"}, "username", "Username may contain only letters, digits and @ . + - _"),
        ({"password": ""}, "password", "Password is required"),
    ],
)
def test_invalid_account_changes_are_400(client, customer, changes, field, message):
    response = client.patch(f"/api/users/users/{customer.id}/", json=changes, headers=auth_headers(customer))
    assert response.status_code == 400
    assert response.json()[field] == [message]


def test_email_and_username_stay_unique_on_update(client, make_user):
    me, other = make_user(), make_user()
    response = client.patch(
        f"/api/users/users/{me.id}/",
        json={"email": other.email.upper(), "username": other.username, "current_password": PASSWORD},
        headers=auth_headers(me),
    )
    assert response.status_code == 400
    assert response.json()["email"] == ["A user with this email already exists."]
    assert response.json()["username"] == ["A user with this username already exists."]
    # Keeping one's own email and username is fine.
    same = client.patch(
        f"/api/users/users/{me.id}/", json={"email": me.email, "username": me.username}, headers=auth_headers(me)
    )
    assert same.status_code == 200


def test_whether_an_email_is_taken_is_told_only_with_the_password(client, make_user):
    """A stolen or throwaway session asked, without the password, whether any email had an account:
    "already exists" for a taken one, only the password's message for a free one."""
    me, other = make_user(), make_user()
    for email in (other.email, "nobody-yet@example.com"):
        answer = client.patch(f"/api/users/users/{me.id}/", json={"email": email}, headers=auth_headers(me))
        assert answer.status_code == 400 and set(answer.json()) == {"detail", "current_password"}, answer.text
    assert reload_user(me.id).email == me.email


def test_new_usernames_and_emails_tried_are_rationed_per_account(client, make_user, use_settings, admin_headers):
    """Registration rations the "already exists" answer; a profile change asked it without limit."""
    me, other = make_user(), make_user()
    url, headers = f"/api/users/users/{me.id}/", auth_headers(me)
    use_settings(DD_REGISTER_MAX_ATTEMPTS="3")
    tried = [client.patch(url, json={"username": name}, headers=headers).status_code
             for name in (other.username, "free-one", other.username)]
    assert tried == [400, 200, 400]
    refused = client.patch(url, json={"username": "free-two"}, headers=headers)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert reload_user(me.id).username == "free-one"
    # Sending one's own values back asks nothing, and an admin is not rationed.
    assert client.patch(url, json={"username": "free-one", "email": me.email}, headers=headers).status_code == 200
    for _ in range(4):
        assert client.patch(url, json={"username": other.username}, headers=admin_headers).status_code == 400
    with session_scope() as session:
        [count] = session.exec(select(models.AuthThrottle).where(models.AuthThrottle.key == me.id)).all()
        assert count.hits == 4


def test_an_email_from_before_todays_rules_does_not_block_saving(client, make_user):
    """The original client sends the email back with every save: one stored before the look-alike
    rules (a trailing dot) is kept as it is, and the rest of the form is saved."""
    me = make_user(email="ama@example.com.")
    saved = client.patch(f"/api/users/users/{me.id}/", json={"email": "ama@example.com.", "first_name": "Ama"},
                         headers=auth_headers(me))
    assert saved.status_code == 200, saved.text
    assert (reload_user(me.id).email, reload_user(me.id).first_name) == ("ama@example.com.", "Ama")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"content": b"{", "headers": {"Content-Type": "application/json"}},
        {"json": [1, 2]},
        {"json": {"first_name": 12}},
        {"json": {"profile": {"bio": ["x"]}}},
        {"json": {"profile": "bio"}},
    ],
)
def test_bad_bodies_for_user_update_are_400(client, customer, kwargs):
    headers = {**kwargs.pop("headers", {}), **auth_headers(customer)}
    response = client.patch(f"/api/users/users/{customer.id}/", headers=headers, **kwargs)
    assert response.status_code == 400


# --- PATCH /users/profiles/{id}/ JSON ----------------------------------------------------------------


def test_profile_json_update_and_blank_becomes_null(client, customer):
    url = f"/api/users/profiles/{profile_id_of(customer)}/"
    response = client.patch(
        url, json={"bio": "I love deals", "website": "https://deals.example.com"}, headers=auth_headers(customer)
    )
    assert response.status_code == 200
    assert response.json()["bio"] == "I love deals"
    cleared = client.patch(url, json={"bio": "  ", "website": None}, headers=auth_headers(customer))
    assert cleared.status_code == 200
    assert cleared.json()["bio"] is None and cleared.json()["website"] is None
    me = client.get("/api/users/me/", headers=auth_headers(customer)).json()
    assert me["profile"]["bio"] is None


@pytest.mark.parametrize("website", ["not a url", "ftp://example.com", "javascript:alert(1)", "http://"])
def test_profile_website_must_be_a_web_url(client, customer, website):
    url = f"/api/users/profiles/{profile_id_of(customer)}/"
    response = client.patch(url, json={"website": website}, headers=auth_headers(customer))
    assert response.status_code == 400
    assert response.json()["website"] == ["Enter a valid URL."]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"content": b"{oops", "headers": {"Content-Type": "application/json"}},
        {"content": b"", "headers": {"Content-Type": "application/json"}},
        {"json": ["bio"]},
        {"json": {"bio": 42}},
    ],
)
def test_bad_profile_bodies_are_400(client, customer, kwargs):
    headers = {**kwargs.pop("headers", {}), **auth_headers(customer)}
    response = client.patch(f"/api/users/profiles/{profile_id_of(customer)}/", headers=headers, **kwargs)
    assert response.status_code == 400
    assert response.json()["detail"]


def test_another_users_profile_is_not_found(client, make_user, admin):
    me, other = make_user(), make_user()
    url = f"/api/users/profiles/{profile_id_of(other)}/"
    for user in (me, admin):
        assert client.get(url, headers=auth_headers(user)).status_code == 404
        assert client.patch(url, json={"bio": "hacked"}, headers=auth_headers(user)).status_code == 404
        assert _upload(client, user, _png_upload(), profile_id=profile_id_of(other)).status_code == 404
    assert client.get(f"/api/users/profiles/{profile_id_of(me)}/", headers=auth_headers(me)).status_code == 200
    assert client.patch(url, json={"bio": "x"}).status_code == 401


# --- image upload --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg")])
def test_real_image_is_stored_and_served_back(client, customer, fmt, mime):
    response = _upload(client, customer, _png_upload(image_bytes(fmt), f"me.{fmt.lower()}", mime), {"bio": "Hi"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["bio"] == "Hi"
    url = body["profile_image"]
    assert url.startswith("http://testserver/api/media/profiles/") and url.endswith(".webp")
    served = client.get(url)
    assert served.status_code == 200
    with Image.open(io.BytesIO(served.content)) as stored:
        assert stored.format == "WEBP" and stored.size == (64, 48)
    me = client.get("/api/users/me/", headers=auth_headers(customer)).json()
    assert me["profile"]["profile_image"] == url


def test_large_image_is_resized_and_metadata_stripped(client, customer):
    exif = Image.Exif()
    exif[0x010F] = "SpyCam"  # camera make
    data = image_bytes("JPEG", size=(1200, 800), exif=exif.tobytes())
    response = _upload(client, customer, _png_upload(data, "big.jpg", "image/jpeg"))
    assert response.status_code == 200
    with Image.open(io.BytesIO(client.get(response.json()["profile_image"]).content)) as stored:
        assert stored.size == (512, 341)
        assert not stored.getexif() and "exif" not in stored.info


def test_replacing_the_picture_deletes_the_old_file(client, customer):
    first = _upload(client, customer, _png_upload()).json()["profile_image"]
    second = _upload(client, customer, _png_upload(image_bytes(colour=(0, 0, 255)))).json()["profile_image"]
    assert first != second
    assert client.get(second).status_code == 200
    assert client.get(first).status_code == 404


def test_a_text_file_named_png_is_refused(client, customer):
    response = _upload(client, customer, _png_upload(b"hello, I am not an image at all", "avatar.png"))
    assert response.status_code == 400
    message = "Upload a valid image. The file you uploaded was either not an image or a corrupted image."
    assert response.json()["profile_image"] == [message]
    assert client.get("/api/users/me/", headers=auth_headers(customer)).json()["profile"]["profile_image"] is None


def test_an_oversized_image_is_refused(client, customer):
    side = 1400  # random pixels do not compress: about 5.9 MB as PNG
    noise = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    out = io.BytesIO()
    noise.save(out, format="PNG")
    assert out.tell() > 5 * 1024 * 1024
    response = _upload(client, customer, _png_upload(out.getvalue()))
    assert response.status_code == 400
    assert response.json()["profile_image"] == ["Image too large: at most 5 MB."]


def test_an_oversized_upload_without_content_length_is_refused(client, customer):
    boundary = "dd-boundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="profile_image"; filename="a.png"\r\n'
        "Content-Type: image/png\r\n\r\n"
    ).encode()
    payload = head + image_bytes() + b"\0" * (5 * 1024 * 1024) + f"\r\n--{boundary}--\r\n".encode()

    def chunks():  # a generator body is sent chunked, with no Content-Length
        for start in range(0, len(payload), 65536):
            yield payload[start : start + 65536]

    response = client.patch(
        f"/api/users/profiles/{profile_id_of(customer)}/",
        content=chunks(),
        headers={**auth_headers(customer), "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert response.status_code == 400
    assert response.json()["profile_image"] == ["Image too large: at most 5 MB."]


def test_a_decompression_bomb_is_refused(client, customer):
    bomb = io.BytesIO()
    Image.new("1", (9000, 9000)).save(bomb, format="PNG")  # 81 megapixels in a few kilobytes
    assert bomb.tell() < 100_000
    response = _upload(client, customer, _png_upload(bomb.getvalue(), "bomb.png"))
    assert response.status_code == 400
    assert response.json()["profile_image"] == ["Image dimensions are too large: at most 12.6 megapixels."]


def test_profile_image_sent_as_text_is_refused(client, customer):
    response = client.patch(
        f"/api/users/profiles/{profile_id_of(customer)}/",
        data={"profile_image": "avatar.png"},
        files={"unused": ("x.txt", b"x", "text/plain")},
        headers=auth_headers(customer),
    )
    assert response.status_code == 400
    assert "profile_image" in response.json()


def test_multipart_without_a_picture_updates_text_fields(client, customer):
    text_only = {"bio": "", "website": "https://a.io"}
    response = _upload(client, customer, {"unused": ("x.txt", b"x", "text/plain")}, text_only)
    assert response.status_code == 200
    assert response.json() == {
        "id": profile_id_of(customer),
        "bio": None,
        "website": "https://a.io",
        "profile_image": None,
    }


def test_names_and_bios_from_before_todays_rules_do_not_block_saving(client, make_user):
    """Both forms send every field back with each save: a name or bio stored with an invisible mark
    (pasted from a phone, before the rule) was refused on a save that changed something else."""
    me = make_user(first_name="Ama\u200e", last_name="Mensah")
    with session_scope() as session:
        profile = session.exec(select(models.Profile).where(models.Profile.user_id == me.id)).one()
        profile.bio = "Akwaaba\u200b"
        session.add(profile)
    url, headers = f"/api/users/users/{me.id}/", auth_headers(me)
    saved = client.patch(url, json={"first_name": "Ama\u200e", "last_name": "Owusu",
                                    "profile": {"bio": "Akwaaba\u200b", "website": None}}, headers=headers)
    assert saved.status_code == 200, saved.text
    assert (reload_user(me.id).first_name, reload_user(me.id).last_name) == ("Ama\u200e", "Owusu")
    again = client.patch(f"/api/users/profiles/{profile_id_of(me)}/", json={"bio": "Akwaaba\u200b",
                                                                          "website": "https://ama.example.com"},
                         headers=headers)
    assert again.status_code == 200 and again.json()["website"] == "https://ama.example.com"
    # A new value is held to the rules.
    refused = client.patch(url, json={"first_name": "Esi\u200e"}, headers=headers)
    assert refused.status_code == 400 and reload_user(me.id).first_name == "Ama\u200e"


def test_a_bio_may_carry_any_emoji_flag(client, customer, customer_headers):
    """England's flag is the black flag and invisible "tag" characters; Ghana's, two letters."""
    bio = "Chelsea fan \U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F in Accra \U0001F1EC\U0001F1ED"
    saved = client.patch(f"/api/users/profiles/{profile_id_of(customer)}/", json={"bio": bio}, headers=customer_headers)
    assert saved.status_code == 200 and saved.json()["bio"] == bio
    hidden = client.patch(f"/api/users/profiles/{profile_id_of(customer)}/", json={"bio": "a\U000E0061b"},
                          headers=customer_headers)
    assert hidden.status_code == 400 and hidden.json()["bio"] == ["Must not contain control characters."]
