"""Images: verified, re-encoded uploads and the demo catalogue's generated product pictures.

Uploaded files are judged by their content, never their name: Pillow must recognise them as
PNG, JPEG, GIF or WebP, decompression bombs are refused, and what is stored is a fresh WebP
re-encoding (metadata stripped) resized to the requested bound, under a generated name.
"""

from __future__ import annotations

import hashlib
import io
import os
import uuid
import warnings
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont, ImageOps

from ..settings import get_settings
from . import ValidationFailed

ALLOWED_FORMATS = {"PNG", "JPEG", "GIF", "WEBP"}
# Media sub-folders holding uploads, whose files may be replaced and deleted.
UPLOAD_FOLDERS = {"profiles"}
NOT_AN_IMAGE = "Upload a valid image. The file you uploaded was either not an image or a corrupted image."


def media_url(relative_path: str) -> str:
    """The URL under which a file of the media folder is served."""
    return f"{get_settings().media_url}/{relative_path.lstrip('/')}"


def delete_stored_image(url: str | None) -> None:
    """Remove an uploaded picture from the media folder; any other URL is left alone."""
    settings = get_settings()
    prefix = f"{settings.media_url}/"
    if not url or not url.startswith(prefix):
        return
    root = settings.media_dir.resolve()
    path = (root / url[len(prefix) :]).resolve()
    if path.parent.parent == root and path.parent.name in UPLOAD_FOLDERS:
        path.unlink(missing_ok=True)


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def prepare_uploaded_image(data: bytes, max_side: int) -> bytes:
    """Verify ``data`` as an image and return it re-encoded as WebP, at most ``max_side`` pixels a side.

    Raises :class:`ValidationFailed` for anything that is not a safe, supported image. Pure CPU
    work: callers run it before taking database locks.
    """
    settings = get_settings()
    if not data:
        message = "The submitted file is empty."
        raise ValidationFailed(message, fields={"profile_image": [message]})
    if len(data) > settings.max_image_bytes:
        message = f"Image too large: at most {settings.max_image_bytes // (1024 * 1024)} MB."
        raise ValidationFailed(message, fields={"profile_image": [message]})
    Image.MAX_IMAGE_PIXELS = settings.max_image_pixels
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:
                if probe.format not in ALLOWED_FORMATS:
                    raise ValidationFailed(NOT_AN_IMAGE, fields={"profile_image": [NOT_AN_IMAGE]})
                probe.verify()
            with Image.open(io.BytesIO(data)) as image:
                image.load()
                image = ImageOps.exif_transpose(image)
                image = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB")
                image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
                out = io.BytesIO()
                image.save(out, format="WEBP", quality=85, method=4)
    except ValidationFailed:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        message = "Image dimensions are too large."
        raise ValidationFailed(message, fields={"profile_image": [message]}) from None
    except Exception:  # Pillow raises many types for hostile input; all mean "not an image".
        raise ValidationFailed(NOT_AN_IMAGE, fields={"profile_image": [NOT_AN_IMAGE]}) from None
    return out.getvalue()


def save_prepared_image(webp: bytes, folder: str) -> str:
    """Store the output of :func:`prepare_uploaded_image` under a generated name; return its URL."""
    relative = f"{folder}/{uuid.uuid4().hex}.webp"
    _atomic_write(get_settings().media_dir / relative, webp)
    return media_url(relative)


def store_uploaded_image(data: bytes, folder: str, max_side: int) -> str:
    """Verify ``data`` as an image, re-encode it and store it; return its URL.

    Raises :class:`ValidationFailed` for anything that is not a safe, supported image.
    """
    return save_prepared_image(prepare_uploaded_image(data, max_side), folder)


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
        _atomic_write(path, render_product_image(name, label, colour))
    return media_url(relative_path)
