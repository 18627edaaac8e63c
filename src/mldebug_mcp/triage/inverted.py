"""Sparse vectors kept by term (an inverted index), so that a query reads the entries of its own words only.

The matcher compares a description with a few thousand vectors; read whole from the on-disk cache they
cost tens of milliseconds to decode, while a description shares a few dozen terms with them. Each term's
entry is kept as compact JSON text and decoded on first use. Cosines come out bit for bit as a dict-by-dict
dot product gives them: the products of the shared terms, summed in the order of the shorter vector (a term
the other vector lacks adds an exact 0.0, which changes no sum)."""

from __future__ import annotations

Vector = dict[str, float]


def add_postings(postings: dict[str, list], vectors: list[Vector]) -> list[int]:
    """Append each vector's terms to `postings[term]` as flat (vector number, position, value) triples;
    the vectors' sizes, which decide the order of each sum."""
    for number, vector in enumerate(vectors):
        for position, (term, value) in enumerate(vector.items()):
            postings.setdefault(term, []).extend((number, position, value))
    return [len(vector) for vector in vectors]


def cosines(query: Vector, postings: dict[str, list], sizes: list[int]) -> dict[int, float]:
    """The dot product of the query with every stored vector that shares a term with it (the rest are 0),
    each summed over the shorter of the two vectors, in its order. `postings`: term -> flat triples."""
    size = len(query)
    # Products of a vector at least as long as the query arrive in the query's order, as they are summed;
    # those of a shorter one carry their position in it, to be summed in that order.
    found: dict[int, list] = {}
    for term, weight in query.items():
        flat = postings.get(term)
        if not flat:
            continue
        for i in range(0, len(flat), 3):
            number = flat[i]
            products = found.get(number)
            if products is None:
                products = found[number] = []
            products.append((flat[i + 1], weight * flat[i + 2]) if sizes[number] < size else weight * flat[i + 2])
    return {number: sum(p for _, p in sorted(products)) if sizes[number] < size else sum(products)
            for number, products in found.items()}
