"""The demo catalogue: categories and products a Ghanaian shopper would recognise.

``seed_demo`` is idempotent: it adds what is missing (matched by category slug and product
name) and leaves everything else alone. Prices, discounts, stock and ratings are derived
deterministically from each product's name, so every machine seeds the same catalogue.
Pictures are drawn locally (no network) into the media folder.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from sqlmodel import Session, select

from ..models import Category, Product
from ..models.base import utcnow
from ..config.settings import get_settings
from .catalog import name_key, refresh_derived, slugify
from .demo_pictures import write_product_image
from .money import round_amount

# (name, description, RGB colour of its pictures)
CATEGORIES: list[tuple[str, str, tuple[int, int, int]]] = [
    ("Groceries", "Rice, oils, flour, tinned food and kitchen staples", (196, 120, 38)),
    ("Beverages", "Soft drinks, malt, juices, water, tea and cocoa drinks", (180, 40, 60)),
    ("Household", "Cleaning, laundry and everyday home supplies", (40, 120, 170)),
    ("Electronics", "Phones, TVs, audio, small appliances and accessories", (50, 60, 90)),
    ("Baby & Kids", "Diapers, baby food, wipes and care for little ones", (230, 130, 160)),
    ("Beauty & Personal Care", "Skin, hair, oral care and toiletries", (150, 70, 160)),
    ("Fresh Food", "Bread, dairy, eggs, meat, fish and produce", (60, 150, 80)),
    ("Home & Kitchen", "Cookware, storage, furniture and decor", (120, 90, 60)),
    ("Snacks & Sweets", "Biscuits, chips, chocolate and sweets", (210, 160, 30)),
    ("Fashion", "Clothing, shoes and bags for the family", (90, 90, 90)),
]

# Cedis per listed dollar for a shop in cedis (DD_CURRENCY=GHS): the list below is in US dollars,
# and twelve cedis a dollar lands on Accra's shelf prices (2026): 25 kg of parboiled rice GH₵504,
# 3 L of Frytol GH₵155, 400 g of Milo GH₵81.50, a 32-inch Nasco TV GH₵2,270.
SHELF_RATES = {"USD": Decimal("1"), "GHS": Decimal("12")}

# category -> [(product name, brand, list price in US dollars)]
PRODUCTS: dict[str, list[tuple[str, str, str]]] = {
    "Groceries": [
        ("Royal Aroma Jasmine Rice 5kg", "shoprite", "18.50"),
        ("Gino Tomato Paste 400g", "shoprite", "2.40"),
        ("Frytol Vegetable Oil 3L", "melcom", "12.90"),
        ("Golden Penny Spaghetti 500g", "shoprite", "1.35"),
        ("Titus Sardines in Oil 125g", "shoprite", "1.60"),
        ("Ideal Evaporated Milk 160g", "melcom", "1.10"),
        ("Maggi Seasoning Cubes 100 pack", "shoprite", "3.20"),
        ("Obaapa Gari 2kg", "melcom", "4.75"),
        ("Tuozafi Maize Flour 2kg", "shoprite", "3.90"),
        ("Nkulenu Palm Soup Base 800g", "melcom", "4.20"),
        ("Ghana Brown Sugar 1kg", "shoprite", "2.10"),
        ("Annapurna Iodised Salt 1kg", "makro", "0.95"),
        ("Mama's Pride Parboiled Rice 25kg", "melcom", "42.00"),
        ("Sunlight Groundnut Paste 500g", "game", "3.60"),
    ],
    "Beverages": [
        ("Milo Chocolate Malt Drink 400g", "shoprite", "6.80"),
        ("Coca-Cola 1.5L Bottle", "shoprite", "1.75"),
        ("Malta Guinness 330ml Six Pack", "melcom", "5.40"),
        ("Voltic Mineral Water 1.5L Twelve Pack", "melcom", "6.20"),
        ("Don Simon Orange Juice 1L", "shoprite", "3.10"),
        ("Lipton Yellow Label Tea 100 bags", "melcom", "4.50"),
        ("Nescafe Classic Coffee 200g", "shoprite", "9.90"),
        ("Fanta Orange 500ml Twelve Pack", "melcom", "8.40"),
        ("Golden Tree Drinking Chocolate 500g", "shoprite", "5.30"),
        ("Vitamilk Soy Milk 1L", "game", "2.90"),
        ("Blue Skies Pineapple Juice 1L", "shoprite", "3.80"),
        ("Alvaro Pear Malt 330ml Can", "melcom", "0.95"),
        ("Sobolo Hibiscus Drink 1L", "makro", "2.20"),
    ],
    "Household": [
        ("Omo Washing Powder 2kg", "shoprite", "7.90"),
        ("Key Soap Bar Pack of 6", "melcom", "4.10"),
        ("Harpic Toilet Cleaner 750ml", "shoprite", "3.40"),
        ("Dettol Antiseptic Liquid 1L", "melcom", "8.60"),
        ("Sunlight Dishwashing Liquid 750ml", "shoprite", "2.70"),
        ("Morning Fresh Bleach 2L", "melcom", "3.10"),
        ("Baygon Insect Spray 600ml", "shoprite", "5.20"),
        ("Rose Toilet Tissue 10 Rolls", "melcom", "4.90"),
        ("Mr Min Scouring Pads 10 pack", "game", "1.80"),
        ("Glade Air Freshener 300ml", "shoprite", "3.60"),
        ("Ariel Liquid Detergent 2L", "melcom", "11.40"),
        ("Heavy Duty Refuse Bags 50 pack", "makro", "3.30"),
        ("Mosquito Coil Box of 10", "melcom", "1.20"),
    ],
    "Electronics": [
        ("Nasco 32 inch LED TV", "melcom", "189.00"),
        ("Tecno Spark 20 Smartphone 128GB", "melcom", "149.00"),
        ("Infinix Hot 40i Smartphone", "shoprite", "129.00"),
        ("Binatone Standing Fan 16 inch", "melcom", "39.90"),
        ("Bruhm Chest Freezer 200L", "melcom", "349.00"),
        ("Oraimo Power Bank 20000mAh", "shoprite", "24.50"),
        ("Oraimo FreePods Wireless Earbuds", "shoprite", "29.90"),
        ("Sony Bluetooth Speaker SRS-XB13", "game", "54.00"),
        ("Midea Microwave Oven 20L", "melcom", "89.00"),
        ("Binatone Electric Kettle 1.7L", "shoprite", "19.90"),
        ("Philips Dry Iron", "melcom", "17.50"),
        ("Samsung 55 inch Smart TV", "game", "549.00"),
        ("Nasco Blender 1.5L", "melcom", "34.00"),
        ("USB-C Fast Charger 25W", "shoprite", "9.90"),
        ("Solar Rechargeable Lantern", "melcom", "14.90"),
    ],
    "Baby & Kids": [
        ("Pampers Baby Dry Size 4 Jumbo Pack", "shoprite", "21.90"),
        ("Huggies Dry Comfort Size 3 58 pack", "melcom", "18.40"),
        ("Cerelac Maize and Milk 400g", "shoprite", "5.90"),
        ("Nan Optipro Infant Formula 400g", "shoprite", "16.80"),
        ("Johnson's Baby Lotion 500ml", "melcom", "6.40"),
        ("Pampers Fresh Clean Wipes 64", "shoprite", "3.50"),
        ("Nunu Baby Milk Powder 400g", "melcom", "7.20"),
        ("Baby Feeding Bottle Set 3 pack", "melcom", "8.90"),
        ("Molfix Diapers Size 2 Mega Pack", "game", "15.60"),
        ("Kids School Backpack", "melcom", "12.50"),
        ("Bebecare Baby Oil 200ml", "shoprite", "2.80"),
        ("Toddler Tricycle", "melcom", "45.00"),
    ],
    "Beauty & Personal Care": [
        ("Nivea Body Lotion Cocoa Butter 400ml", "shoprite", "6.90"),
        ("Pepsodent Toothpaste 140g", "melcom", "1.40"),
        ("Close Up Toothpaste Twin Pack", "shoprite", "2.60"),
        ("Rexona Roll On Deodorant 50ml", "melcom", "2.90"),
        ("Dark and Lovely Hair Relaxer Kit", "shoprite", "5.80"),
        ("Shea Butter Pure Unrefined 500g", "melcom", "4.50"),
        ("Vaseline Petroleum Jelly 250ml", "shoprite", "3.10"),
        ("Gillette Blue3 Razors 6 pack", "melcom", "5.60"),
        ("Always Ultra Pads Long 16", "shoprite", "3.20"),
        ("Dudu-Osun Black Soap", "melcom", "1.50"),
        ("Cantu Shea Butter Leave-In Conditioner", "game", "9.80"),
        ("Nice and Lovely Body Cream 500ml", "shoprite", "4.70"),
        ("Colgate Toothbrush 3 pack", "melcom", "2.30"),
    ],
    "Fresh Food": [
        ("Brown Sliced Bread 700g", "shoprite", "1.90"),
        ("Fresh Farm Eggs Crate of 30", "shoprite", "7.80"),
        ("Fan Milk FanIce Vanilla 6 pack", "melcom", "3.30"),
        ("Whole Frozen Chicken 1.5kg", "shoprite", "8.90"),
        ("Frozen Mackerel Fish 1kg", "shoprite", "5.60"),
        ("Fresh Tomatoes 1kg", "shoprite", "2.40"),
        ("Sweet Yellow Plantain Bunch", "shoprite", "3.00"),
        ("Onions 2kg Bag", "melcom", "2.70"),
        ("Fan Yogo Strawberry Yoghurt 500ml", "melcom", "2.10"),
        ("Cheddar Cheese Block 400g", "game", "6.50"),
        ("Beef Sausages 500g", "shoprite", "4.90"),
        ("Pineapple Sugarloaf", "shoprite", "1.60"),
        ("Tilapia Whole Frozen 1kg", "melcom", "6.30"),
    ],
    "Home & Kitchen": [
        ("Non-Stick Frying Pan 28cm", "melcom", "16.90"),
        ("Aluminium Cooking Pot Set 5 piece", "melcom", "38.50"),
        ("Plastic Storage Containers 10 piece", "shoprite", "9.80"),
        ("Glass Tumblers Set of 6", "melcom", "7.60"),
        ("Gas Cylinder 14.5kg Empty", "melcom", "54.00"),
        ("Two Burner Gas Stove", "melcom", "42.00"),
        ("Plastic Chair Armless", "melcom", "8.50"),
        ("Cotton Bedsheet Set Double", "shoprite", "19.90"),
        ("Wall Clock Modern 30cm", "melcom", "6.90"),
        ("Kitchen Knife Set 6 piece", "game", "14.50"),
        ("Thermos Food Flask 2.5L", "melcom", "12.40"),
        ("Ceramic Dinner Plates Set of 6", "shoprite", "13.90"),
        ("Mosquito Net King Size", "melcom", "9.50"),
    ],
    "Snacks & Sweets": [
        ("McVitie's Digestive Biscuits 400g", "shoprite", "2.90"),
        ("Pringles Original 165g", "shoprite", "3.40"),
        ("Golden Tree Kingsbite Chocolate 100g", "melcom", "1.80"),
        ("Nkatie Burger Peanut Brittle", "melcom", "0.90"),
        ("Digestive Cream Crackers 300g", "shoprite", "1.70"),
        ("Plantain Chips Spicy 150g", "shoprite", "1.20"),
        ("Haribo Goldbears 200g", "game", "2.60"),
        ("Choco Milo Cubes 100 pack", "melcom", "3.90"),
        ("Hollandia Roasted Groundnuts 250g", "shoprite", "1.50"),
        ("Oreo Cookies Family Pack", "shoprite", "3.20"),
        ("Lollipop Assorted 50 pack", "melcom", "2.40"),
        ("Kalypo Coconut Cookies 12 pack", "makro", "2.80"),
    ],
    "Fashion": [
        ("Men's Kente Print Shirt", "melcom", "22.00"),
        ("Women's Ankara Maxi Dress", "melcom", "34.00"),
        ("Unisex Canvas Sneakers", "shoprite", "18.50"),
        ("Men's Leather Sandals", "melcom", "15.90"),
        ("Ladies Handbag Faux Leather", "melcom", "24.50"),
        ("Kids School Uniform Set", "shoprite", "13.80"),
        ("Men's Polo Shirt Cotton", "shoprite", "11.90"),
        ("Women's Flip Flops", "melcom", "3.90"),
        ("Baseball Cap Adjustable", "melcom", "5.50"),
        ("Wax Print Fabric 6 Yards", "melcom", "29.00"),
        ("Men's Denim Jeans Slim Fit", "game", "26.00"),
        ("Travel Suitcase 24 inch", "melcom", "58.00"),
    ],
}

FEATURED = {
    "Royal Aroma Jasmine Rice 5kg",
    "Milo Chocolate Malt Drink 400g",
    "Nasco 32 inch LED TV",
    "Tecno Spark 20 Smartphone 128GB",
    "Pampers Baby Dry Size 4 Jumbo Pack",
    "Omo Washing Powder 2kg",
    "Bruhm Chest Freezer 200L",
    "Nivea Body Lotion Cocoa Butter 400ml",
    "Aluminium Cooking Pot Set 5 piece",
    "Women's Ankara Maxi Dress",
}

_DESCRIPTIONS = [
    "{name} at a price that makes sense. Genuine stock from our partner retailer.",
    "Everyday quality you can trust: {name}, delivered across Accra and Kumasi.",
    "Stock up and save on {name} while this deal lasts.",
    "{name}. A shopper favourite, now discounted for a limited time.",
]


@dataclass(frozen=True)
class SeedResult:
    categories_created: int
    products_created: int
    products_total: int


def _rng(name: str) -> random.Random:
    return random.Random(int(hashlib.sha256(name.encode()).hexdigest()[:16], 16))


# The demo sells: every product is discounted and in stock, except these few, kept so that a
# product at its full price and a sold-out one can be seen (neither is featured).
FULL_PRICE = {"Ghana Brown Sugar 1kg", "Annapurna Iodised Salt 1kg", "Women's Flip Flops"}
SOLD_OUT = {"Travel Suitcase 24 inch", "Sobolo Hibiscus Drink 1L"}
PERCENTS = [5, 10, 10, 15, 15, 20, 20, 25, 30, 35, 40, 45, 50, 60]


def _demo_fields(name: str, price: Decimal) -> dict:
    """Deterministic demo values for one product: discount, stock, rating."""
    rng = _rng(name)
    roll = rng.random()
    percent = 70 if roll > 0.96 else rng.choice(PERCENTS)
    discount = None if name in FULL_PRICE else round_amount(price * (100 - percent) / 100)
    stock = 0 if name in SOLD_OUT else rng.choice([3, 5, 8, 12, 20, 25, 40, 60, 100, 150])
    rating = round(rng.uniform(3.0, 5.0), 1)
    return {"discount_price": discount, "stock": stock, "rating": rating}


def shelf_price(list_price: str, currency: str) -> Decimal:
    """A demo list price (US dollars) in the shop's currency, rounded as shelves mark them: to
    50 pesewas under 100, to a cedi under 1,000, to ten cedis above (other currencies: as listed)."""
    rate = SHELF_RATES.get(currency)
    if rate is None or rate == 1:
        return round_amount(list_price)
    price = Decimal(list_price) * rate
    step = Decimal("0.5") if price < 100 else Decimal("1") if price < 1000 else Decimal("10")
    return round_amount((price / step).quantize(Decimal("1")) * step)


def seed_demo(session: Session, currency: str | None = None) -> SeedResult:
    """Add the demo categories and products that are missing, priced in ``currency`` (by
    default the shop's, ``DD_CURRENCY``: see :func:`shelf_price`)."""
    currency = currency or get_settings().currency.code
    categories_created = products_created = 0
    by_name: dict[str, Category] = {}
    for name, description, _colour in CATEGORIES:
        slug = slugify(name)
        category = session.exec(select(Category).where(Category.slug == slug)).first()
        if category is None:
            category = Category(name=name, slug=slug, description=description)
            session.add(category)
            categories_created += 1
        by_name[name] = category
    session.flush()

    existing = set(session.exec(select(Product.name_key)).all())
    colours = {name: colour for name, _d, colour in CATEGORIES}
    # Creation times one second apart, in the list's order (its first product the newest): the
    # listings' "newest" (and the featured-first default's tie-break) show the catalogue as listed
    # on every machine, not in the order of a seeding loop's microseconds.
    started = utcnow()
    for position, (category_name, index, (name, brand, list_price)) in enumerate(
        (category_name, index, row) for category_name, rows in PRODUCTS.items() for index, row in enumerate(rows)
    ):
        category = by_name[category_name]
        if name_key(name) in existing:
            continue
        price = shelf_price(list_price, currency)
        fields = _demo_fields(name, price)
        image_url = write_product_image(
            f"demo/{slugify(name)}.webp", name, brand, colours[category_name]
        )
        product = Product(
            name=name,
            description=_DESCRIPTIONS[index % len(_DESCRIPTIONS)].format(name=name),
            brand=brand,
            image_url=image_url,
            price=price,
            is_featured=name in FEATURED,
            is_available=True,
            status="active",
            tags=[category.slug, brand, *(["featured"] if name in FEATURED else [])],
            related_products=[],
            category_id=category.id,
            created_at=started - timedelta(seconds=position),
            **fields,
        )
        session.add(refresh_derived(product))
        existing.add(product.name_key)
        products_created += 1
    session.flush()
    total = len(session.exec(select(Product.id)).all())
    return SeedResult(categories_created, products_created, total)
