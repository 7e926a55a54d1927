"""Products in the first HTML: the server fills the pre-rendered page shells of /, /test-home,
/products and /products/{id} with their data, head tags and JSON-LD (see middleware.py), and
knows every inline script of the page it sends (its policy's hashes)."""
