"""Money: an amount with its currency, written out in one place (issue 33).

Every face, message, export and receipt writes an amount through :class:`Money` (or the
shop-currency helpers below), so no text can carry a symbol of its own or a "$" by default.
Three forms:

- :meth:`Money.text`: for screens and emails, with the symbol: ``$12.50``, ``GH₵12.50``;
- :meth:`Money.plain_text`: ASCII, the ISO code, a space and the amount: ``GHS 12.35``. SMS
  texts use it (GH₵ is outside the GSM-7 alphabet: one such character makes every alert two
  SMS), as do the receipt PDF's Latin-1 font and CSV exports;
- :meth:`Money.api`: the API's two-decimal string, ``12.50``.

Babel's ``format_currency`` was measured again and left out: 36 MB on disk, about 40 ms to
import and 30 ms more for its first locale, 37 µs a call against 3 µs here, and CLDR's en_GH
writes ``US$12.50`` where the SPEC shows ``$12.50``. The symbols are discount_deals.config.currency's
table (that module parses the setting); every currency the shop serves counts in hundredths,
the two decimals the database stores.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from ..config.currency import Currency, parse_currency, symbol_of

MINOR_DIGITS = 2  # cents, pesewas, kobo: the database stores two decimals
MONEY_STEP = Decimal(1).scaleb(-MINOR_DIGITS)  # 0.01

Amount = Decimal | int | float | str


def round_amount(value: Amount) -> Decimal:
    """``value`` rounded half up to the minor unit (as shoppers expect, not banker's rounding).

    ValueError for what is no amount: not a number, NaN, infinities, amounts too large to count."""
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value))
        if not number.is_finite():  # NaN would quantize to NaN without a word
            raise InvalidOperation
        return number.quantize(MONEY_STEP, rounding=ROUND_HALF_UP)
    except InvalidOperation as exc:
        raise ValueError(f"not a money amount: {value!r}") from exc


def api_amount(value: Amount) -> str:
    """The API's two-decimal string of any amount: ``12.5`` → ``12.50`` (no separator, no symbol)."""
    return f"{round_amount(value):.{MINOR_DIGITS}f}"


def money_str(value: Amount | None) -> str | None:
    """:func:`api_amount`, with None staying None (an optional amount in an answer)."""
    return None if value is None else api_amount(value)


def minor_units(value: Amount) -> int:
    """An amount in cents or pesewas, as payment providers count it (12.50 → 1250)."""
    return int(round_amount(value) * 10**MINOR_DIGITS)


def from_minor_units(value: int) -> Decimal:
    """Cents or pesewas back to an amount (1250 → 12.50)."""
    return round_amount(Decimal(value) / 10**MINOR_DIGITS)


def shop_currency() -> Currency:
    """The shop's one currency (``DD_CURRENCY``)."""
    from ..config.settings import get_settings  # settings reads the environment; imported late like pricing does

    return get_settings().currency


@dataclass(frozen=True)
class Money:
    """An amount (rounded half up to the minor unit) in one currency (its ISO 4217 code)."""

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "amount", round_amount(self.amount))
        object.__setattr__(self, "currency", parse_currency(self.currency, "currency").code)

    @classmethod
    def of(cls, value: Amount, currency: str | Currency | None = None) -> Money:
        """``value`` in ``currency`` (a code or a Currency), the shop's currency by default."""
        if currency is None:
            currency = shop_currency()
        return cls(round_amount(value), currency.code if isinstance(currency, Currency) else currency)

    @classmethod
    def total(cls, amounts: Iterable[Money], currency: str | Currency | None = None) -> Money:
        """The sum of ``amounts`` (zero in ``currency`` when there are none)."""
        return sum(amounts, cls.of(0, currency))

    @property
    def symbol(self) -> str:
        return symbol_of(self.currency)

    def _digits(self, cents: bool = True) -> tuple[str, str]:
        sign = "-" if self.amount < 0 else ""
        places = MINOR_DIGITS if cents or self.amount != self.amount.to_integral_value() else 0
        return sign, f"{abs(self.amount):,.{places}f}"

    def text(self, *, cents: bool = True) -> str:
        """For screens and emails: ``$12.50``, ``GH₵1,234.50``, ``-$3.00`` (``$25`` with ``cents=False``
        for a whole amount, as price ranges read)."""
        sign, digits = self._digits(cents)
        return f"{sign}{self.symbol}{digits}"

    def plain_text(self) -> str:
        """ASCII, for SMS, Latin-1 PDFs and exports: ``GHS 12.35``, ``USD 12.50``."""
        sign, digits = self._digits()
        return f"{self.currency} {sign}{digits}"

    sms_text = plain_text

    def api(self) -> str:
        """The API's two-decimal string: ``12.50`` (no thousands separator, no symbol)."""
        return api_amount(self.amount)

    def __str__(self) -> str:
        return self.text()

    def _same(self, other: object) -> Money:
        if not isinstance(other, Money):
            return NotImplemented  # type: ignore[return-value]
        if other.currency != self.currency:
            raise ValueError(f"cannot add {other.currency} to {self.currency}")
        return other

    def __add__(self, other: Money) -> Money:
        other = self._same(other)
        return other if other is NotImplemented else Money(self.amount + other.amount, self.currency)

    def __radd__(self, other: object) -> Money:
        if other == 0:  # sum() starts from 0
            return self
        return self.__add__(other)  # type: ignore[arg-type]

    def __sub__(self, other: Money) -> Money:
        other = self._same(other)
        return other if other is NotImplemented else Money(self.amount - other.amount, self.currency)

    def __mul__(self, times: int) -> Money:
        if not isinstance(times, int) or isinstance(times, bool):
            return NotImplemented
        return Money(self.amount * times, self.currency)

    __rmul__ = __mul__

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)


# --- the shop's currency: what faces, messages and exports call --------------------------------


def money_text(value: Amount) -> str:
    """An amount in the shop's currency for screens and emails: ``GH₵12.50``."""
    return Money.of(value).text()


def plain_money_text(value: Amount) -> str:
    """An amount in the shop's currency for SMS, Latin-1 PDFs and exports: ``GHS 12.50``."""
    return Money.of(value).plain_text()
