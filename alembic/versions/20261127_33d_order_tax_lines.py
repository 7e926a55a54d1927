"""orders keep their tax lines (issue 33): existing orders get the one 8 % "Tax" line they were charged

Revision ID: 33d_order_tax_lines
Revises: 9c2e4f7a1b35
Create Date: 2026-11-27 15:00:00.000000
"""
from decimal import Decimal
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '33d_order_tax_lines'
down_revision: Union[str, None] = '9c2e4f7a1b35'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_ORDER = sa.table("order", sa.column("id", sa.String), sa.column("tax", sa.Numeric(12, 2)),
                  sa.column("tax_lines", sa.JSON))


def _legacy_line(tax) -> list[dict]:
    # Every order before this revision was charged the spec's 8 % as one line (written out here,
    # not imported: a migration keeps meaning what it meant when it was written).
    return [{"code": "tax", "label": "Tax", "rate": "8.00", "amount": f"{Decimal(str(tax or 0)):.2f}",
             "included": False}]


def upgrade() -> None:
    with op.batch_alter_table('order', schema=None) as batch_op:
        batch_op.add_column(sa.Column('tax_lines', sa.JSON(), nullable=True))
    connection = op.get_bind()
    rows = connection.execute(sa.select(_ORDER.c.id, _ORDER.c.tax)).all()
    update = _ORDER.update().where(_ORDER.c.id == sa.bindparam("order_id")).values(tax_lines=sa.bindparam("lines"))
    for start in range(0, len(rows), 1000):
        batch = [{"order_id": row.id, "lines": _legacy_line(row.tax)} for row in rows[start:start + 1000]]
        connection.execute(update, batch)


def downgrade() -> None:
    with op.batch_alter_table('order', schema=None) as batch_op:
        batch_op.drop_column('tax_lines')
