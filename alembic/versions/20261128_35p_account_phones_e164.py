"""account phones stored E.164 (issue 35 item 5): every account phone that parses becomes
+233241234567 (or another country's E.164); what does not parse is left as it is, with a log
line per user id and the count at the end; user.phonenumber gets an index (the reset by SMS
looks an account up by that one form)

Revision ID: 35p_account_phones_e164
Revises: 34r_product_reviews
Create Date: 2026-11-28 10:00:00.000000
"""
import logging
from typing import Sequence, Union

import phonenumbers
import sqlalchemy as sa
from alembic import op
from phonenumbers import NumberParseException, PhoneNumberFormat


revision: str = '35p_account_phones_e164'
down_revision: Union[str, None] = '34r_product_reviews'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

log = logging.getLogger("alembic.35p_account_phones_e164")
_users = sa.table('user', sa.column('id', sa.String), sa.column('phonenumber', sa.String))


def e164(raw: str) -> str | None:
    """The rule of services/phones.parse_account_phone as it stood at this revision (a copy: a
    migration must convert the same way whatever that module becomes): a valid number, Ghanaian
    in any usual spelling or another country's with its code, as E.164; None otherwise."""
    text = raw.strip()
    digits = "".join(ch for ch in text if ch.isdigit())
    if not text or len(text) > 40 or (text.startswith(("+", "233")) and digits.startswith("2330")):
        return None  # nothing, or the trunk 0 kept after the country code: not a number anyone can dial
    if text.startswith("233"):
        text = "+" + text  # written without the plus
    try:
        number = phonenumbers.parse(text, "GH")
    except NumberParseException:
        return None
    return phonenumbers.format_number(number, PhoneNumberFormat.E164) if phonenumbers.is_valid_number(number) else None


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(_users.c.id, _users.c.phonenumber).where(_users.c.phonenumber != '')).all()
    left = 0
    for user_id, phone in rows:
        converted = e164(phone)
        if converted is None:
            left += 1
            log.warning("user %s: phone number %r is not a valid number; left as it is", user_id, phone)
        elif converted != phone:
            connection.execute(_users.update().where(_users.c.id == user_id).values(phonenumber=converted))
    log.info("account phones: %d of %d stored as E.164, %d left as they were", len(rows) - left, len(rows), left)
    op.create_index(op.f('ix_user_phonenumber'), 'user', ['phonenumber'], unique=False)


def downgrade() -> None:
    # The numbers stay E.164: the code before this revision accepts and reads that form too.
    op.drop_index(op.f('ix_user_phonenumber'), table_name='user')
