"""Images: verified, re-encoded uploads (the demo catalogue's pictures are :mod:`.demo_pictures`).

Uploaded files are judged by their content, never their name: Pillow must recognise them as
PNG, JPEG, GIF or WebP, pictures with too many pixels are refused from their header before
anything is decoded, and what is stored is a fresh WebP re-encoding (metadata stripped) resized
to the requested bound, under a generated name. Decoding is memory-bounded: JPEGs are reduced
while decoding, at most two pictures are decoded at once, and freed memory is returned.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import io
import os
import threading
import uuid
import warnings
from pathlib import Path

from PIL import Image, ImageOps
from sqlalchemy import event
from sqlalchemy.orm import Session

from ..config.settings import get_settings
from . import ServiceError, ValidationFailed
from .error_codes import ErrorCode

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


_DELETE_UNLESS_COMMITTED = "dd_delete_unless_committed"
_DELETE_AFTER_COMMIT = "dd_images_to_delete"


def delete_after_commit(session: Session, url: str | None) -> None:
    """Remove an uploaded picture (as :func:`delete_stored_image`) once ``session``'s transaction
    commits: a change that is refused or fails later keeps the row pointing at its file, and the file."""
    if url:
        session.info.setdefault(_DELETE_AFTER_COMMIT, []).append(url)


def delete_unless_committed(session: Session, url: str | None) -> None:
    """Remove a picture just stored for ``session``'s transaction if that transaction does not
    commit: no row would name it, and it stayed public for good (PostgreSQL: an upload that lost a
    race with the account's closing answered 409 and left its new file)."""
    if url:
        session.info.setdefault(_DELETE_UNLESS_COMMITTED, []).append(url)


@event.listens_for(Session, "after_commit")
def _delete_committed(session: Session) -> None:
    # Runs for the outermost transaction only (a savepoint's release is no commit).
    session.info.pop(_DELETE_UNLESS_COMMITTED, None)  # the rows name these now
    for url in session.info.pop(_DELETE_AFTER_COMMIT, ()):
        delete_stored_image(url)


@event.listens_for(Session, "after_transaction_end")
def _keep_uncommitted(session: Session, transaction) -> None:
    # The outermost transaction ended without its commit (rolled back, or the session closed):
    # the row still names its picture, and no row names the ones stored for it. A savepoint's end
    # leaves the lists to its transaction.
    if transaction.parent is None:
        session.info.pop(_DELETE_AFTER_COMMIT, None)
        for url in session.info.pop(_DELETE_UNLESS_COMMITTED, ()):
            delete_stored_image(url)


def atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _image_error(message: str) -> ValidationFailed:
    return ValidationFailed(message, fields={"profile_image": [message]})


class ImagesBusy(ServiceError):
    """Every image slot stayed taken for :data:`SLOT_WAIT_SECONDS` (HTTP 503)."""

    status = 503

    def __init__(self) -> None:
        super().__init__("Too many pictures are being processed. Please try again.", code=ErrorCode.IMAGES_BUSY)
        self.headers = {"Retry-After": "5"}


# What a decoded picture may cost. Baseline JPEG (what phone cameras write) is decoded at a
# reduced scale (libjpeg's DCT scaling, Image.draft): a 40-megapixel photo decodes at 1/4 or
# 1/8 of its size, so it may go up to the configured DD_MAX_IMAGE_PIXELS. Everything else
# (PNG, GIF, WebP, progressive JPEG, whose coefficients are all kept) is decoded whole, so it
# stops at 4096 × 3072: a 12-megapixel phone photo (4032 × 3024, 4000 × 3000) re-saved as PNG,
# or any phone screenshot, fits; decoded as RGBA that is at most 48 MiB.
FULL_DECODE_PIXELS = 4096 * 3072
# At most this many pictures are decoded at once in the process; others wait their turn.
IMAGE_SLOTS = 2
SLOT_WAIT_SECONDS = 30
_slots = threading.BoundedSemaphore(IMAGE_SLOTS)


def _return_memory() -> None:
    """Hand freed decode buffers back to the system (glibc keeps large freed blocks otherwise)."""
    if _malloc_trim is not None:
        _malloc_trim(0)


_M_MMAP_THRESHOLD = -3
# Blocks this large are mapped and unmapped on their own. glibc would otherwise raise its
# threshold to the size of the first decode buffer it frees (Pillow allocates 16 MiB blocks)
# and keep every later one in its heap: the probe's worker kept 2.3 GB after a burst.
MMAP_THRESHOLD_BYTES = 4 * 1024 * 1024


def _load_malloc_trim():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
        return libc.malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


_malloc_trim = _load_malloc_trim()


def pixel_limit(image: Image.Image, data: bytes = b"") -> int:
    """The most pixels ``image`` (opened, not decoded; ``data`` its file) may have: see
    :data:`FULL_DECODE_PIXELS`. A JPEG of several scans keeps every coefficient as a progressive
    one does, flagged or not: a 0.6 MB sequential CMYK JPEG of 40 megapixels, each channel in a
    scan of its own, took 316 MB to decode. Scans start with an SOS marker (FF DA), which never
    appears inside coded data (an FF there is followed by 00)."""
    configured = get_settings().max_image_pixels
    progressive = bool(image.info.get("progressive") or image.info.get("progression"))
    if image.format == "JPEG" and not progressive and data.count(b"\xff\xda") <= 1:
        return configured
    return min(configured, FULL_DECODE_PIXELS)


def _too_many_pixels(limit: int) -> ValidationFailed:
    return _image_error(f"Image dimensions are too large: at most {limit / 1_000_000:.1f} megapixels.")


def prepare_uploaded_image(data: bytes, max_side: int) -> bytes:
    """Verify ``data`` as an image and return it re-encoded as WebP, at most ``max_side`` pixels a side.

    The header is read first: an unsupported format or too many pixels (:func:`pixel_limit`)
    is refused before anything is decoded. Decoding then waits for one of
    :data:`IMAGE_SLOTS` slots (:class:`ImagesBusy` after :data:`SLOT_WAIT_SECONDS`), reduces
    JPEGs while decoding, and gives the memory back afterwards. Raises
    :class:`ValidationFailed` for anything that is not a safe, supported image. Pure CPU work:
    callers run it before taking database locks.
    """
    settings = get_settings()
    if not data:
        raise _image_error("The submitted file is empty.")
    if len(data) > settings.max_image_bytes:
        raise _image_error(f"Image too large: at most {settings.max_image_bytes // (1024 * 1024)} MB.")
    # Pillow's own bomb check, as a backstop to the limits below.
    Image.MAX_IMAGE_PIXELS = settings.max_image_pixels
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:  # reads the header only
                if probe.format not in ALLOWED_FORMATS:
                    raise _image_error(NOT_AN_IMAGE)
                width, height = probe.size
                limit = pixel_limit(probe, data)
                if width * height > limit:
                    raise _too_many_pixels(limit)
                probe.verify()
            if not _slots.acquire(timeout=SLOT_WAIT_SECONDS):
                raise ImagesBusy()
            try:
                return _reencode(data, max_side)
            finally:
                _slots.release()
                _return_memory()
    except (ValidationFailed, ImagesBusy):
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        # Past even the JPEG limit: say the limit of the picture's own format.
        jpeg = data[:3] == b"\xff\xd8\xff"
        limit = settings.max_image_pixels if jpeg else min(settings.max_image_pixels, FULL_DECODE_PIXELS)
        raise _too_many_pixels(limit) from None
    except Exception:  # Pillow raises many types for hostile input; all mean "not an image".
        raise _image_error(NOT_AN_IMAGE) from None


def _reencode(data: bytes, max_side: int) -> bytes:
    with Image.open(io.BytesIO(data)) as image:
        if image.mode == "I" or image.mode.startswith("I;16"):
            # 16-bit grey (a scanner's PNG): Pillow's conversion to 8 bits clips, which made it white.
            image = image.convert("I").point(lambda value: value / 256, "L")
        if image.mode == "P":
            # Palette pictures are resized in colour, not by nearest neighbour.
            image = image.convert("RGBA" if image.info.get("transparency") is not None else "RGB")
        # Reduces while decoding where the format allows (JPEG: draft), then resamples.
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
        ImageOps.exif_transpose(image, in_place=True)
        if image.mode not in ("RGB", "RGBA"):
            image = image.convert("RGBA" if "A" in image.mode or "transparency" in image.info else "RGB")
        out = io.BytesIO()
        image.save(out, format="WEBP", quality=85, method=4)
    return out.getvalue()


def save_prepared_image(webp: bytes, folder: str) -> str:
    """Store the output of :func:`prepare_uploaded_image` under a generated name; return its URL."""
    relative = f"{folder}/{uuid.uuid4().hex}.webp"
    atomic_write(get_settings().media_dir / relative, webp)
    return media_url(relative)


def store_uploaded_image(data: bytes, folder: str, max_side: int) -> str:
    """Verify ``data`` as an image, re-encode it and store it; return its URL.

    Raises :class:`ValidationFailed` for anything that is not a safe, supported image.
    """
    return save_prepared_image(prepare_uploaded_image(data, max_side), folder)
