"""reviews from buyers (issue 34): a review per product per customer; the product's shown rating
becomes its published reviews' average (the admin's number kept apart) with their count

Revision ID: 34r_product_reviews
Revises: 34f_per_customer_limit
Create Date: 2026-11-27 17:51:45.027022
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '34r_product_reviews'
down_revision: Union[str, None] = '34f_per_customer_limit'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'review',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=36), nullable=False),
        sa.Column('product_id', sa.String(length=36), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('rating', sa.Integer(), nullable=False),
        sa.Column('text', sa.Text(), server_default='', nullable=False),
        sa.Column('is_hidden', sa.Boolean(), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['product_id'], ['product.id'], name=op.f('fk_review_product_id_product'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_review_user_id_user'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_review')),
        sa.UniqueConstraint('product_id', 'user_id', name='uq_review_product_user'),
    )
    op.create_index('ix_review_created_at', 'review', ['created_at'], unique=False)
    op.create_index('ix_review_product_hidden_created', 'review', ['product_id', 'is_hidden', 'created_at'],
                    unique=False)
    op.create_index(op.f('ix_review_user_id'), 'review', ['user_id'], unique=False)
    # Plain ADD COLUMNs: a batch rebuild of product would drop its search triggers.
    op.add_column('product', sa.Column('admin_rating', sa.Float(), nullable=True))
    op.add_column('product', sa.Column('review_count', sa.Integer(), server_default='0', nullable=False))


def downgrade() -> None:
    # A plain DROP COLUMN: a batch rebuild of product would trip over the search objects.
    op.execute('UPDATE product SET rating = admin_rating WHERE admin_rating IS NOT NULL')
    op.execute('ALTER TABLE product DROP COLUMN review_count')
    op.execute('ALTER TABLE product DROP COLUMN admin_rating')
    op.drop_index(op.f('ix_review_user_id'), table_name='review')
    op.drop_index('ix_review_product_hidden_created', table_name='review')
    op.drop_index('ix_review_created_at', table_name='review')
    op.drop_table('review')
