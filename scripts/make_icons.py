"""Draw the shop's app icons (issue 31: installable): the logo's white "%" on orange-700, as
PNGs the web app manifest (assets/manifest.webmanifest) and iOS ask for. Run once; the results
are committed.

    .venv/bin/python scripts/make_icons.py
"""

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ASSETS = Path(__file__).resolve().parent.parent / "assets"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
ORANGE = (194, 65, 12)  # orange-700, the logo's and the theme colour


def icon(size: int, *, maskable: bool) -> Image.Image:
    """A maskable icon fills its square (the launcher cuts its own shape, keeping the centre
    80 %); the plain one is a rounded square on transparency."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    if maskable:
        draw.rectangle([0, 0, size, size], fill=ORANGE)
        glyph = round(size * 0.42)
    else:
        draw.rounded_rectangle([0, 0, size - 1, size - 1], radius=round(size * 0.22), fill=ORANGE)
        glyph = round(size * 0.62)
    draw.text((size / 2, size / 2), "%", font=ImageFont.truetype(BOLD, glyph), fill="white", anchor="mm")
    return image


def main() -> None:
    (ASSETS / "icons").mkdir(exist_ok=True)
    for name, size, maskable in [
        ("icon-192.png", 192, False),
        ("icon-512.png", 512, False),
        ("icon-maskable-512.png", 512, True),
        ("apple-touch-icon.png", 180, True),  # iOS rounds the corners itself
    ]:
        out = ASSETS / "icons" / name
        icon(size, maskable=maskable).save(out, optimize=True)
        print(f"{out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
