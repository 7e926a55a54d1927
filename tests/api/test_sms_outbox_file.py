"""Issue 32 item 9: DD_SMS_PROVIDER=file writes each text whole to DD_VAR_DIR/outbox/, so that an
SMS password reset can be finished on a development machine (the log hides one-time codes)."""

from __future__ import annotations

import re
import shutil
import stat

import pytest

from discount_deals.server import preflight
from discount_deals.config.settings import get_settings

from ..builders.accounts import login
from ..builders.messaging import outbox

RESET = "/api/auth/password-reset/"
CONFIRM = "/api/auth/password-reset/confirm/"


@pytest.fixture
def file_texts(messaging, use_settings):
    use_settings(DD_SMS_PROVIDER="file")
    folder = get_settings().var_dir / "outbox"
    shutil.rmtree(folder, ignore_errors=True)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
    get_settings.cache_clear()


def test_an_sms_reset_can_be_finished_from_the_outbox_folder(client, messaging, file_texts, make_user):
    make_user(email="kofi@example.com", phonenumber="0241234567")
    assert client.post(RESET, json={"phone": "024 123 4567"}).status_code == 202
    messaging.deliver()
    assert messaging.texts.texts == []  # nothing went to the SMS provider
    [written] = sorted(file_texts.glob("*.txt"))
    text = written.read_text()
    assert text.startswith("To: +233241234567\nTime: ")
    assert re.search(r"^Time: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$", text, re.M)
    assert stat.S_IMODE(written.stat().st_mode) == 0o600  # a one-time code: for this user only
    code = re.search(r"code is (\d{6})", text).group(1)
    [message] = outbox(channel="sms")
    assert message.status == "sent" and message.provider_id == f"file:{written.name}"
    answer = client.post(CONFIRM, json={"phone": "0241234567", "code": code, "password": "new-pass-1"})
    assert answer.status_code == 200
    assert login(client, "kofi@example.com", "new-pass-1").status_code == 200
    assert not list(file_texts.glob(".*partial"))


def test_the_file_provider_is_refused_when_the_shop_answers_beyond_this_machine(monkeypatch):
    for name in ("DD_PUBLIC_URL", "HOST", "DD_ALLOWED_HOSTS", "DD_TRUSTED_PROXY_HOPS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DD_SMS_PROVIDER", "file")
    get_settings.cache_clear()
    try:
        assert preflight.plan_server(production=True, connect=False).problems == []
        problems = preflight.plan_server(production=True, connect=False, host="0.0.0.0").problems
        monkeypatch.setenv("DD_TRUSTED_PROXY_HOPS", "1")
        get_settings.cache_clear()
        behind_proxy = preflight.plan_server(production=False, connect=False).problems
    finally:
        get_settings.cache_clear()
    assert any(p.startswith("DD_SMS_PROVIDER is 'file' for a shop listening on 0.0.0.0") for p in problems)
    assert any(p.startswith("DD_SMS_PROVIDER is 'file' for a shop behind a proxy") for p in behind_proxy)
