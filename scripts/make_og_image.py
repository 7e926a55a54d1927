"""Draw assets/og-image.png, the 1200 x 630 picture link previews show for the shop's pages
(product pages use the product's own picture). Run once; the result is committed.

    .venv/bin/python scripts/make_og_image.py
"""

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

OUT = Path(__file__).resolve().parent.parent / "assets" / "og-image.png"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
REGULAR = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def main() -> None:
    width, height = 1200, 630
    image = Image.new("RGB", (width, height))
    draw = ImageDraw.Draw(image)
    top, bottom = (194, 65, 12), (153, 27, 27)  # orange-700 to red-800, as the home hero
    for y in range(height):
        t = y / (height - 1)
        draw.line([(0, y), (width, y)], fill=tuple(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True)))
    draw.rounded_rectangle([90, 90, 230, 230], radius=32, fill="white")
    draw.text((160, 160), "%", font=ImageFont.truetype(BOLD, 100), fill=top, anchor="mm")
    draw.text((270, 160), "Discount Deals", font=ImageFont.truetype(BOLD, 84), fill="white", anchor="lm")
    draw.text((90, 340), "Discover Amazing Deals", font=ImageFont.truetype(BOLD, 64), fill="white")
    draw.text(
        (90, 440),
        "Discounted products from Shoprite, Melcom and more,\nall in one place.",
        font=ImageFont.truetype(REGULAR, 38),
        fill=(255, 237, 213),
        spacing=14,
    )
    image.save(OUT, optimize=True)
    print(f"{OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
