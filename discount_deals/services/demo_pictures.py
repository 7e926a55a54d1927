"""The demo catalogue's product pictures: a tinted card with the product's initials and name,
drawn with Pillow and written once into the media folder (``seed-demo``)."""

from __future__ import annotations

import hashlib
import io

from PIL import Image, ImageDraw, ImageFont

from ..config.settings import get_settings
from .images import atomic_write, media_url


def _font(size: int) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType
        return ImageFont.load_default()


def _wrap(draw: ImageDraw.ImageDraw, text: str, font, width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}".strip()
        if draw.textlength(trial, font=font) <= width or not current:
            current = trial
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines[:3]


def render_product_image(name: str, label: str, colour: tuple[int, int, int], size: int = 320) -> bytes:
    """A small, recognisable WebP picture for a demo product: a tinted card with its name."""
    seed = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)
    image = Image.new("RGB", (size, size), colour)
    draw = ImageDraw.Draw(image)
    light = tuple(min(255, c + 70) for c in colour)
    # A simple "package" shape whose proportions vary per product.
    w = size * (0.38 + (seed % 20) / 100)
    h = size * (0.30 + (seed // 20 % 20) / 100)
    x0, y0 = (size - w) / 2, size * 0.16
    draw.rounded_rectangle((x0, y0, x0 + w, y0 + h), radius=size // 18, fill=light, outline=(255, 255, 255), width=3)
    initials = "".join(part[0] for part in name.split()[:2]).upper()
    font_big = _font(size // 6)
    draw.text((size / 2, y0 + h / 2), initials, font=font_big, fill=colour, anchor="mm")
    font = _font(size // 13)
    y = y0 + h + size * 0.06
    for line in _wrap(draw, name, font, int(size * 0.9)):
        draw.text((size / 2, y), line, font=font, fill=(255, 255, 255), anchor="ma")
        y += size // 11
    draw.text((size / 2, size * 0.93), label.upper(), font=_font(size // 18), fill=light, anchor="mm")
    out = io.BytesIO()
    image.save(out, format="WEBP", quality=72, method=6)
    return out.getvalue()


def write_product_image(relative_path: str, name: str, label: str, colour: tuple[int, int, int]) -> str:
    """Render the picture into the media folder unless it is already there; return its URL."""
    path = get_settings().media_dir / relative_path
    if not path.exists():
        atomic_write(path, render_product_image(name, label, colour))
    return media_url(relative_path)
