"""Amounts arrive as exact decimal strings with the asset's decimals ("1.500001" for 6 decimals)."""

from __future__ import annotations

import re
from decimal import Decimal

_AMOUNT = re.compile(r"^(-?)(\d+)(?:\.(\d+))?$")


def to_base_units(amount: str, decimals: int) -> int:
    """``to_base_units("1.500001", 6)`` → ``1500001``; raises when ``amount`` has more places than ``decimals``."""
    match = _AMOUNT.match(amount)
    if match is None:
        raise ValueError(f'not a decimal amount: "{amount}"')
    sign, whole, fraction = match.group(1), match.group(2), match.group(3) or ""
    if len(fraction) > decimals:
        raise ValueError(f'"{amount}" has more than {decimals} decimal places')
    units = int(whole + fraction.ljust(decimals, "0"))
    return -units if sign else units


def from_base_units(units: int, decimals: int) -> str:
    """``from_base_units(1500001, 6)`` → ``"1.500001"``: the API's own formatting."""
    sign = "-" if units < 0 else ""
    digits = str(abs(units)).rjust(decimals + 1, "0")
    return sign + digits if decimals == 0 else f"{sign}{digits[:-decimals]}.{digits[-decimals:]}"


def decimals_of(amount: str) -> int:
    return len(amount) - amount.index(".") - 1 if "." in amount else 0


def to_decimal(amount: str) -> Decimal:
    """The exact Decimal of an amount string (never a float)."""
    return Decimal(amount)
