"""What checkout offers: delivery and payment methods, and the pickup stores (their own API is
:mod:`.pickup_stores`)."""

from __future__ import annotations

from ..models import DeliveryMethod, PaymentMethod
from ..services.checkout import DELIVERY_METHODS, PAYMENT_METHODS, checkout_options
from ..services.phones import NETWORKS
from ..services.money import money_str
from ..config.settings import get_settings
from .deps import OptionalUser, SessionDep
from .openapi import documents
from .response_models import CheckoutOptionsOut
from .pickup_stores import store_json
from .routing import ApiRouter

router = ApiRouter(tags=["checkout"])


@router.get("/checkout/options/", **documents(CheckoutOptionsOut))
def options(session: SessionDep, _user: OptionalUser) -> dict:
    """The shop's currency, delivery methods with their fee (home delivery is free over
    ``free_over``), payment methods (mobile money lists its networks) and the pickup stores."""
    found = checkout_options(session)
    fees = {"delivery": found.delivery_fee, "pickup": 0}
    currency = get_settings().currency
    return {
        "currency": {"code": currency.code, "symbol": currency.symbol},
        "delivery_methods": [
            {
                "code": code,
                "name": name,
                "fee": money_str(fees[code]),
                **({"free_over": money_str(found.free_delivery_over)} if code == DeliveryMethod.DELIVERY else {}),
            }
            for code, name in DELIVERY_METHODS.items()
        ],
        "payment_methods": [
            {
                "code": code,
                "name": name,
                **(
                    {"networks": [{"code": net, "name": label} for net, (label, _prefixes) in NETWORKS.items()]}
                    if code == PaymentMethod.MOBILE_MONEY
                    else {}
                ),
            }
            for code, name in PAYMENT_METHODS.items()
        ],
        "pickup_stores": [store_json(store) for store in found.stores],
    }
