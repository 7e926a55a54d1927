"""How a message leaves the shop: SMTP or the log for email, an SMS provider, the log or a file
for texts.

The provider seam: :func:`email_transport` and :func:`sms_transport` return an object with
``send(message) -> provider id`` and ``close()``, chosen by the settings. A failure raises
:class:`SendFailed`, ``permanent`` when trying again cannot help (the recipient was refused),
``channel_down`` when the failure is the channel's, not the message's (the delivery then tries no
other message of that channel until the retry time).

Email is sent with Python's own ``smtplib`` and ``email`` packages, one connection per batch.
Every email carries a stable ``Message-ID`` made from the outbox id, so a copy sent again after
a worker died between the server's "250 OK" and our record of it can be recognised downstream;
the Hubtel call carries the outbox id as its ``ClientReference`` for the same reason.
"""

from __future__ import annotations

import logging
import os
import smtplib
import socket
import ssl
from datetime import UTC, datetime
from email.headerregistry import Address
from email.header import Header
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.policy import compat32
from email.utils import formataddr, formatdate, parseaddr
from pathlib import Path
from typing import Protocol

import httpx

from ...models import OutboxMessage
from ...config.settings import get_settings
from ...config.settings_messages import MessagingSettings
from .unsubscribe import one_click_url

log = logging.getLogger("discount_deals.messages")


class SendFailed(Exception):
    """One attempt failed: ``permanent`` (no retry can help), else tried again, not before
    ``retry_after`` seconds when the provider said so (HTTP ``Retry-After``).

    ``channel_down``: the channel failed, not this message (the server cannot be reached or
    refused the shop's login, the provider asks us to slow down or fails with a 5xx): every other
    message of the channel would fail the same way now, each using up an attempt."""

    def __init__(self, detail: str, *, permanent: bool = False, retry_after: int = 0, channel_down: bool = False):
        super().__init__(detail)
        self.detail = detail
        self.permanent = permanent
        self.retry_after = retry_after
        self.channel_down = channel_down


class SendUnconfirmed(Exception):
    """The message went out whole but its answer never came (a timeout after SMTP's final "." or
    after Hubtel's request): the provider may hold it, so it is recorded sent, with ``detail``,
    and not sent again (deploy.md: at most once). Retried, a slow provider gave the customer one
    copy per attempt (a probe: 4)."""

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


def _retry_after(value: str | None) -> int:
    """``Retry-After`` in seconds (its HTTP-date form is read as none), at most a day."""
    return min(int(value), 86_400) if value and value.strip().isdigit() else 0


def _from_header(mail_from: str) -> str:
    """DD_MAIL_FROM as a header: only the display name encoded ("Discount Déals <shop@…>"
    encoded whole left no address a server could read: RFC 2047 keeps encoded words out of it)."""
    name, address = parseaddr(mail_from)
    return formataddr((name, address), charset="utf-8") if address else mail_from


class Transport(Protocol):
    def send(self, message: OutboxMessage) -> str: ...

    def close(self) -> None: ...


def _domain(settings: MessagingSettings) -> str:
    return parseaddr(settings.mail_from)[1].rpartition("@")[2] or "localhost"


# compat32 MIME classes: three to ten times faster to build than EmailMessage's header registry,
# which mattered at hundreds of messages a second. Lines end in CRLF (SMTP refuses bare LF) and
# are folded at 76 characters: RFC 5322 asks for 78 at most, and a subject beyond ASCII becomes
# encoded words of at most 75 (RFC 2047: a folded line is a space and one word). We folded at 998
# for the unsubscribe URL, which made such a subject one encoded word of ~280 characters; that URL
# alone is now written whole (:class:`_Written`). The modern policy (EmailMessage, policy.SMTP)
# folds too, but Python 3.11's drops a space between two encoded words it folds apart.
_CRLF = compat32.clone(linesep="\r\n", max_line_length=76)


class _Written:
    """A header value the message writes as it is, on one line (compat32 writes any "Header-like"
    value through its ``encode``)."""

    def __init__(self, value: str):
        self.value = value

    def encode(self, splitchars: str = "", maxlinelen: int | None = None, linesep: str = "\n") -> str:
        return self.value


def _header(name: str, value: str) -> str | Header:
    """``value`` as header ``name``'s: encoded words when it is not ASCII (the name makes the first
    line shorter by its length)."""
    return value if value.isascii() else Header(value, "utf-8", header_name=name)


def build_email(message: OutboxMessage, settings: MessagingSettings) -> bytes:
    """The MIME message: plain text and HTML alternatives, the shop's sender, unsubscribe headers."""
    text = MIMEText(message.body_text, "plain", "utf-8")
    if message.body_html:
        mime = MIMEMultipart("alternative")
        mime.attach(text)
        mime.attach(MIMEText(message.body_html, "html", "utf-8"))
    else:
        mime = text
    mime["From"] = _from_header(settings.mail_from)
    mime["To"] = message.recipient
    mime["Subject"] = _header("Subject", message.subject)
    mime["Date"] = formatdate(usegmt=True)
    mime["Message-ID"] = message_id(message, settings)
    if message.topic and message.user_id:
        # RFC 8058 one-click unsubscribe: mail clients POST to this URL, no login needed.
        # One line however long (up to SMTP's 998): mail clients read the URL whole.
        mime["List-Unsubscribe"] = _Written(f"<{one_click_url(message.user_id, message.topic)}>")
        mime["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return mime.as_bytes(policy=_CRLF)


def message_id(message: OutboxMessage, settings: MessagingSettings) -> str:
    """Stable per outbox row: a copy sent again can be recognised."""
    return f"<{message.id}@{_domain(settings)}>"


class _EndMarked:
    """An SMTP connection that notes when a message's end (CRLF . CRLF) has gone out."""

    message_sent = False

    def send(self, s):
        super().send(s)
        if isinstance(s, bytes) and s.endswith(b"\r\n.\r\n"):
            self.message_sent = True


class _Smtp(_EndMarked, smtplib.SMTP):
    pass


class _SmtpSsl(_EndMarked, smtplib.SMTP_SSL):
    pass


class SmtpTransport:
    """One SMTP connection for a batch, opened on the first message (``DD_SMTP_*``)."""

    def __init__(self, settings: MessagingSettings):
        self.settings = settings
        self._connection: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        context = ssl.create_default_context()
        if s.smtp_tls == "tls":
            connection: smtplib.SMTP = _SmtpSsl(s.smtp_host, s.smtp_port, timeout=s.send_timeout_seconds,
                                                context=context)
        else:
            connection = _Smtp(s.smtp_host, s.smtp_port, timeout=s.send_timeout_seconds)
        try:
            if s.smtp_tls == "starttls":
                connection.starttls(context=context)
            # Commands and replies are small: without TCP_NODELAY each one can wait for a delayed
            # ACK (40 ms on Linux), which capped a batch at about 25 messages a second.
            connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if s.smtp_user:
                connection.login(s.smtp_user, s.smtp_password)
        except BaseException:
            connection.close()  # a login refused leaves no socket behind
            raise
        return connection

    def send(self, message: OutboxMessage) -> str:
        email = build_email(message, self.settings)
        sender = parseaddr(self.settings.mail_from)[1]
        # A failure before this message's turn (cannot connect, greeting, STARTTLS, login refused)
        # is the server's for every message: the channel is down. So is a 421 at any step (RFC 5321
        # 3.8: the server is closing the channel).
        connecting = self._connection is None
        try:
            if connecting:
                self._connection = self._connect()
                connecting = False
            self._connection.message_sent = False
            refused = self._connection.sendmail(sender, [message.recipient], email)
        except smtplib.SMTPRecipientsRefused as exc:
            code = next(iter(exc.recipients.values()), (0, b""))[0]
            raise SendFailed(f"recipient refused ({code})", permanent=500 <= code < 600, channel_down=code == 421) from None
        except smtplib.SMTPResponseException as exc:
            self.close()
            # A 5xx to the message itself (after DATA) refuses this message for good; other
            # refusals (a login, the sender) are the shop's to mend, and are tried again.
            refused_message = isinstance(exc, smtplib.SMTPDataError) and 500 <= exc.smtp_code < 600
            raise SendFailed(f"SMTP {exc.smtp_code}: {exc.smtp_error!r}"[:300], permanent=refused_message,
                             channel_down=connecting or exc.smtp_code == 421) from None
        except (smtplib.SMTPException, OSError) as exc:
            went_out = self._connection is not None and self._connection.message_sent
            self.close()
            if went_out:  # no answer to the message's end: the server may have it
                raise SendUnconfirmed(f"SMTP: no answer after the message was sent ({exc})"[:300]) from None
            raise SendFailed(f"SMTP: {exc.__class__.__name__}: {exc}"[:300], channel_down=connecting) from None
        except UnicodeError:
            # An address that is not ASCII (kofí@example.com): smtplib fails in the middle of the
            # MAIL command. The connection is dropped so the next message starts clean, and this
            # one will not go through on a retry either.
            self.close()
            raise SendFailed("the address is not ASCII: it cannot go through this mail server", permanent=True) from None
        except BaseException:
            self.close()  # whatever went wrong, the next message gets a connection in a known state
            raise
        if refused:
            raise SendFailed(f"recipient refused: {refused}"[:300], permanent=True)
        return message_id(message, self.settings)

    def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.quit()
            except (smtplib.SMTPException, OSError):
                connection.close()


class LogEmail:
    """Development: the email goes to the log (no DD_SMTP_HOST)."""

    def send(self, message: OutboxMessage) -> str:
        log.info("email to %s: %s\n%s", message.recipient, message.subject,
                 "(a one-time secret: not logged)" if message.secret else message.body_text)
        return "log"

    def close(self) -> None:
        pass


class LogSms:
    """Development: the text goes to the log (DD_SMS_PROVIDER=log)."""

    def send(self, message: OutboxMessage) -> str:
        log.info("SMS to %s: %s", message.recipient, "(a one-time secret: not logged)" if message.secret
                 else message.body_text)
        return "log"

    def close(self) -> None:
        pass


OUTBOX_FOLDER = "outbox"


class FileSms:
    """Development: each text is written whole, one-time codes included, to a file of its own
    under ``DD_VAR_DIR/outbox/`` (DD_SMS_PROVIDER=file), so that an SMS password reset can be
    finished on this machine. Preflight refuses it for a shop that answers beyond this machine."""

    def __init__(self, folder: Path):
        self.folder = folder

    def send(self, message: OutboxMessage) -> str:
        now = datetime.now(UTC)
        name = f"{now:%Y%m%dT%H%M%S.%fZ}-sms-{message.id}.txt"
        text = (f"To: {message.recipient}\nTime: {now:%Y-%m-%d %H:%M:%S} UTC\nKind: {message.kind}\n\n"
                f"{message.body_text}\n")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            partial = self.folder / f".{name}.partial"
            # Only this user may read it: a text may hold a one-time code.
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(text)
            partial.replace(self.folder / name)  # whole or not at all for a reader
        except OSError as exc:
            raise SendFailed(f"cannot write to {self.folder}: {exc.strerror or exc}", channel_down=True) from None
        return f"file:{name}"

    def close(self) -> None:
        pass


class HubtelSms:
    """Hubtel's send-message call: ``POST {base}/v1/messages/send`` with From, To, Content,
    authenticated with the client id and secret (HTTP Basic). Status 0 in the answer is success."""

    def __init__(self, settings: MessagingSettings):
        self.settings = settings
        self._client = httpx.Client(
            base_url=settings.hubtel_base_url,
            auth=(settings.hubtel_client_id, settings.hubtel_client_secret),
            timeout=settings.send_timeout_seconds,
        )

    def send(self, message: OutboxMessage) -> str:
        body = {"From": self.settings.sms_sender, "To": message.recipient, "Content": message.body_text,
                "ClientReference": message.id}
        try:
            response = self._client.post("/v1/messages/send", json=body)
        except httpx.ReadTimeout:  # the request went out, its answer did not come
            raise SendUnconfirmed("Hubtel did not answer in time after the request was sent") from None
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:  # nothing went out: no text can now
            raise SendFailed(f"Hubtel unreachable: {exc.__class__.__name__}", channel_down=True) from None
        except httpx.HTTPError as exc:
            raise SendFailed(f"Hubtel unreachable: {exc.__class__.__name__}") from None
        if response.status_code == 429 or response.status_code >= 500:
            # 429 (slow down) and any 5xx (Hubtel or its gateway failing: 500, 502, 504 as much as 503)
            # are the provider's, for every text: a text of ours it cannot take is a 4xx (below).
            raise SendFailed(f"Hubtel answered {response.status_code}", channel_down=True,
                             retry_after=_retry_after(response.headers.get("Retry-After")))
        if response.status_code in (401, 403):
            # Our client id or secret (rotated, mistyped): every text would die for it otherwise.
            raise SendFailed(f"Hubtel refused the shop's credentials ({response.status_code}): check "
                             "DD_HUBTEL_CLIENT_ID and DD_HUBTEL_CLIENT_SECRET", channel_down=True)
        if response.status_code >= 400:
            # A bad number or a sender id Hubtel does not know: trying again cannot help.
            raise SendFailed(f"Hubtel refused ({response.status_code}): {response.text[:200]}", permanent=True)
        try:
            data = response.json()
        except ValueError:
            raise SendFailed("Hubtel answered something that is not JSON") from None
        status = data.get("status", data.get("Status"))
        if status not in (0, "0", None):
            raise SendFailed(f"Hubtel status {status}: {data.get('message') or data.get('Message') or ''}"[:300],
                             permanent=True)
        return str(data.get("messageId") or data.get("MessageId") or "")

    def close(self) -> None:
        self._client.close()


def email_transport() -> Transport:
    settings = get_settings().messages
    return LogEmail() if settings.email_to_log else SmtpTransport(settings)


def sms_transport() -> Transport:
    settings = get_settings()
    if settings.messages.sms_provider == "hubtel":
        return HubtelSms(settings.messages)
    if settings.messages.sms_provider == "file":
        return FileSms(settings.var_dir / OUTBOX_FOLDER)
    return LogSms()


def address_is_valid(address: str) -> bool:
    """An email address the MIME headers accept."""
    try:
        Address(addr_spec=address)
    except (ValueError, IndexError):
        return False
    return "@" in address
