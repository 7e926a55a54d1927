"""returns and refunds (issue 33): returns and their lines, when an order was delivered, what refunds gave back

Delivered orders get ``delivered_at`` from their timeline: the last status event that moved
them to delivered (or to completed, for orders finished before delivery statuses existed).

Revision ID: 33r_returns_refunds
Revises: 33d_receipt_numbers
Create Date: 2026-11-27 17:27:09.524868
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '33r_returns_refunds'
down_revision: Union[str, None] = '33d_receipt_numbers'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('order_return',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=36), nullable=False),
    sa.Column('order_id', sa.String(length=36), nullable=False),
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('admin_note', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('refund_amount', sa.Numeric(precision=12, scale=2), nullable=False),
    sa.Column('refund_discount', sa.Numeric(precision=12, scale=2), nullable=False),
    sa.Column('refund_tax', sa.Numeric(precision=12, scale=2), nullable=False),
    sa.Column('refund_shipping', sa.Numeric(precision=12, scale=2), nullable=False),
    sa.Column('refund_method', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
    sa.Column('refund_state', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('refund_reference', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
    sa.Column('refund_provider_status', sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
    sa.Column('refund_started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('credit_note_number', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
    sa.Column('received_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('refunded_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('refunded_by_id', sa.String(length=36), nullable=True),
    sa.Column('refunded_by_label', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['order_id'], ['order.id'], name=op.f('fk_order_return_order_id_order'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['refunded_by_id'], ['user.id'], name=op.f('fk_order_return_refunded_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_order_return_user_id_user'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_order_return')),
    sa.UniqueConstraint('credit_note_number', name=op.f('uq_order_return_credit_note_number'))
    )
    with op.batch_alter_table('order_return', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_order_return_order_id'), ['order_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_order_return_status'), ['status'], unique=False)
        batch_op.create_index(batch_op.f('ix_order_return_user_id'), ['user_id'], unique=False)

    op.create_table('order_return_line',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=36), nullable=False),
    sa.Column('return_id', sa.String(length=36), nullable=False),
    sa.Column('order_item_id', sa.String(length=36), nullable=False),
    sa.Column('product_id', sa.String(length=36), nullable=True),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('quantity', sa.Integer(), nullable=False),
    sa.Column('unit_price', sa.Numeric(precision=12, scale=2), nullable=False),
    sa.Column('amount', sa.Numeric(precision=12, scale=2), nullable=False),
    sa.ForeignKeyConstraint(['order_item_id'], ['order_item.id'], name=op.f('fk_order_return_line_order_item_id_order_item'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['product_id'], ['product.id'], name=op.f('fk_order_return_line_product_id_product'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['return_id'], ['order_return.id'], name=op.f('fk_order_return_line_return_id_order_return'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_order_return_line'))
    )
    with op.batch_alter_table('order_return_line', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_order_return_line_order_item_id'), ['order_item_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_order_return_line_return_id'), ['return_id'], unique=False)

    with op.batch_alter_table('order', schema=None) as batch_op:
        batch_op.add_column(sa.Column('delivered_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('refunded_total', sa.Numeric(precision=12, scale=2), server_default='0.00', nullable=False))

    # Written out here, not imported: a migration keeps meaning what it meant when it was written.
    order = sa.table("order", sa.column("id", sa.String), sa.column("status", sa.String),
                     sa.column("delivered_at", sqlmodel.sql.sqltypes.UTCDateTime()))
    event = sa.table("order_event", sa.column("order_id", sa.String), sa.column("kind", sa.String),
                     sa.column("to_value", sa.String), sa.column("created_at", sqlmodel.sql.sqltypes.UTCDateTime()))
    finished = ("delivered", "completed")
    when = (sa.select(sa.func.max(event.c.created_at))
            .where(event.c.order_id == order.c.id, event.c.kind == "status", event.c.to_value.in_(finished))
            .scalar_subquery())
    op.execute(order.update().where(order.c.status.in_(finished)).values(delivered_at=when))


def downgrade() -> None:
    with op.batch_alter_table('order', schema=None) as batch_op:
        batch_op.drop_column('refunded_total')
        batch_op.drop_column('delivered_at')

    with op.batch_alter_table('order_return_line', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_order_return_line_return_id'))
        batch_op.drop_index(batch_op.f('ix_order_return_line_order_item_id'))

    op.drop_table('order_return_line')
    with op.batch_alter_table('order_return', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_order_return_user_id'))
        batch_op.drop_index(batch_op.f('ix_order_return_status'))
        batch_op.drop_index(batch_op.f('ix_order_return_order_id'))

    op.drop_table('order_return')
