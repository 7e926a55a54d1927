"""services.users and services.images, called the way the Reflex UI will call them."""

from __future__ import annotations

import io
from datetime import date

import pytest
from PIL import Image

from discount_deals import models
from discount_deals.services import NotAuthenticated, NotFound, PermissionDenied, ValidationFailed
from discount_deals.services import images, users
from discount_deals.config.settings import get_settings


def _registration(**overrides):
    data = {
        "first_name": "Kofi",
        "last_name": "Owusu",
        "username": "kofi",
        "phonenumber": "0241234567",
        "email": "kofi@example.com",
        "password": "akwaaba-deals-7",
        "date_of_birth": "1988-07-01",
        "gender": "male",
        "role": "admin",
    }
    return {**data, **overrides}


def _png(size=(40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (10, 200, 10)).save(out, format="PNG")
    return out.getvalue()


def test_register_and_summary(session):
    user = users.register(session, _registration())
    assert user.role == "customer" and user.date_of_birth == date(1988, 7, 1)
    summary = users.user_summary(session, user)
    assert summary["date_of_birth"] == "1988-07-01"
    assert summary["profile"]["id"] and summary["addresses"] == []
    assert "password_hash" not in summary


def test_register_accepts_a_date_object_and_refuses_non_mappings(session):
    assert users.register(session, _registration(date_of_birth=date(1990, 1, 1))).date_of_birth == date(1990, 1, 1)
    with pytest.raises(ValidationFailed, match="a JSON object is expected"):
        users.register(session, ["not", "a", "dict"])


def test_register_reports_wrong_types_per_field(session):
    with pytest.raises(ValidationFailed) as caught:
        users.register(session, _registration(first_name=5, password=123456))
    assert caught.value.fields == {"first_name": ["Enter text."], "password": ["Enter text."]}


def test_update_user_rules(session, make_user):
    me, other, admin = make_user(), make_user(), make_user(role="admin")
    with pytest.raises(NotFound):
        users.update_user(session, me, other.id, {"first_name": "X"})
    with pytest.raises(NotAuthenticated):
        users.update_user(session, None, me.id, {"first_name": "X"})
    with pytest.raises(ValidationFailed) as caught:
        users.update_user(session, me, me.id, {"profile": "bio"})
    assert caught.value.fields == {"profile": ["Invalid profile: an object is expected."]}
    changed = users.update_user(session, admin, other.id, {"first_name": " Yaa ", "role": "admin"})
    assert changed.first_name == "Yaa" and changed.role == "customer"
    version = changed.token_version
    # A new password needs the account's current one, admins included (they send a reset instead).
    with pytest.raises(ValidationFailed) as caught:
        users.update_user(session, admin, other.id, {"password": "another1"})
    assert list(caught.value.fields) == ["current_password"] and changed.token_version == version
    users.update_user(session, other, other.id, {"password": "another1", "current_password": "secret123"})
    assert changed.token_version == version + 1


def test_update_profile_with_image_bytes(session, customer):
    profile = users.profile_of(session, customer)
    updated = users.update_profile(session, customer, profile.id, bio=" Hello ", image=_png())
    assert updated.bio == "Hello" and updated.website is None
    assert updated.profile_image.startswith("/api/media/profiles/")
    stored = get_settings().media_dir / updated.profile_image.removeprefix("/api/media/")
    assert stored.is_file()
    # Leaving fields out keeps them.
    users.update_profile(session, customer, profile.id, website="https://example.org")
    assert updated.bio == "Hello" and updated.profile_image
    users.update_profile(session, customer, profile.id, image=_png((20, 20)))
    assert stored.exists()  # until the change commits: a refused one keeps the row's picture
    session.commit()
    assert not stored.exists()


def test_update_profile_is_owner_only(session, make_user):
    me, other = make_user(), make_user()
    with pytest.raises(NotFound):
        users.update_profile(session, me, users.profile_of(session, other).id, bio="x")


def test_store_uploaded_image_limits():
    limit = get_settings().max_image_bytes
    with pytest.raises(ValidationFailed, match="Image too large"):
        images.store_uploaded_image(_png() + b"\0" * limit, "profiles", 512)
    with pytest.raises(ValidationFailed, match="empty"):
        images.store_uploaded_image(b"", "profiles", 512)
    gif = io.BytesIO()
    Image.new("P", (10, 10)).save(gif, format="GIF")
    assert images.store_uploaded_image(gif.getvalue(), "profiles", 512).endswith(".webp")


def test_delete_stored_image_touches_only_uploads(tmp_path):
    media = get_settings().media_dir
    keep = media / "products" / "keep.webp"
    keep.parent.mkdir(parents=True, exist_ok=True)
    keep.write_bytes(b"x")
    for url in ("/api/media/products/keep.webp", "/api/media/profiles/../products/keep.webp", "http://x/y.webp", None):
        images.delete_stored_image(url)
    assert keep.exists()
    keep.unlink()


def test_addresses_keep_exactly_one_default(session, customer):
    first = users.add_address(session, customer, {"line1": "A", "city": "Accra", "country": "Ghana"})
    second = users.add_address(session, customer, {"line1": "B", "city": "Tema", "country": "Ghana"})
    assert first.is_default and not second.is_default
    users.update_address(session, customer, second.id, {"is_default": True})
    assert [a.line1 for a in users.addresses_of(session, customer) if a.is_default] == ["B"]
    users.delete_address(session, customer, second.id)
    assert [(a.line1, a.is_default) for a in users.list_addresses(session, customer)] == [("A", True)]
    with pytest.raises(ValidationFailed) as caught:
        users.add_address(session, customer, {"line1": " ", "city": "", "country": None, "is_default": "yes"})
    assert caught.value.fields == {
        "line1": ["Line 1 is required"],
        "city": ["City is required"],
        "country": ["Country is required"],
        "is_default": ["Must be true or false."],
    }


def test_list_users_and_change_role_are_admin_only(session, make_user):
    admin, customer = make_user(role="admin"), make_user()
    with pytest.raises(PermissionDenied):
        users.list_users(session, customer)
    with pytest.raises(NotAuthenticated):
        users.list_users(session, None)
    with pytest.raises(PermissionDenied):
        users.change_role(session, customer, customer.id, "admin")
    found, total = users.list_users(session, admin, search=customer.email.upper(), role="customer")
    assert total == 1 and [u.id for u in found] == [customer.id]
    found, total = users.list_users(session, admin, offset=1, limit=1)
    assert total == 2 and [u.id for u in found] == [admin.id]  # newest first: the admin is older
    assert users.change_role(session, admin, customer.id, " Manager ").role == "manager"
    with pytest.raises(ValidationFailed, match="last admin"):
        users.change_role(session, admin, admin.id, "customer")
    assert session.get(models.User, admin.id).role == "admin"


def test_create_or_promote_admin_retires_refresh_tokens(session, make_user):
    user = make_user()
    promoted, created = users.create_or_promote_admin(session, user.email, "newpass1")
    assert not created and promoted.role == "admin" and promoted.token_version == user.token_version + 1


def test_create_admin_neither_reopens_a_closed_account_nor_takes_a_reserved_email(session, make_user):
    from discount_deals.services import Conflict
    from discount_deals.services.users.privacy import close_account

    gone = make_user()
    close_account(session, gone, "secret123")
    closed_email = session.get(models.User, gone.id).email
    with pytest.raises(Conflict) as refused:
        users.create_or_promote_admin(session, closed_email, "newpass-1")
    assert refused.value.code == "account_closed" and session.get(models.User, gone.id).role == "customer"
    with pytest.raises(ValidationFailed):
        users.create_or_promote_admin(session, "boss@shop.invalid", "newpass-1")


def test_a_replaced_picture_goes_only_when_its_transaction_commits(session):
    """A savepoint's rollback (cart, favourites, reviews use them) emptied the list of pictures to
    delete; a session closed without committing kept it for its next commit."""
    from sqlalchemy import text
    from sqlmodel import Session

    from discount_deals.db import get_engine

    path = get_settings().media_dir / "profiles" / "old-face.webp"
    url = images.media_url("profiles/old-face.webp")

    def picture() -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"webp")

    picture()
    with Session(get_engine()) as work:
        work.execute(text("select 1"))
        images.delete_after_commit(work, url)
        work.begin_nested().rollback()
        assert path.exists()
        work.commit()
    assert not path.exists()
    for end in ("rollback", "close"):
        picture()
        with Session(get_engine()) as work:
            work.execute(text("select 1"))
            images.delete_after_commit(work, url)
            getattr(work, end)()
            work.execute(text("select 1"))
            work.commit()
        assert path.exists(), end


def test_a_picture_stored_for_a_change_that_does_not_commit_is_removed(customer):
    """An upload whose transaction rolled back (PostgreSQL: it lost a race with the account's
    closing) left its new file on disk, public, with no row naming it."""
    from discount_deals.db import session_scope
    from discount_deals.models import Profile, User
    from sqlmodel import select

    stored: list[str] = []
    with pytest.raises(RuntimeError), session_scope() as work:
        user = work.get(User, customer.id)
        profile_id = work.exec(select(Profile.id).where(Profile.user_id == user.id)).one()
        stored.append(users.update_profile(work, user, profile_id, image=_png()).profile_image)
        assert (get_settings().media_dir / stored[0].split("/api/media/", 1)[1]).exists()
        raise RuntimeError("a later step of the same transaction fails")
    assert not (get_settings().media_dir / stored[0].split("/api/media/", 1)[1]).exists()
    with session_scope() as work:  # a change that commits keeps its picture
        user = work.get(User, customer.id)
        profile_id = work.exec(select(Profile.id).where(Profile.user_id == user.id)).one()
        kept = users.update_profile(work, user, profile_id, image=_png()).profile_image
    assert (get_settings().media_dir / kept.split("/api/media/", 1)[1]).exists()
