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
    found: dict[int, list[tuple[int, float]]] = {}
    for rank, (term, weight) in enumerate(query.items()):
        flat = postings.get(term)
        if not flat:
            continue
        for i in range(0, len(flat), 3):
            number = flat[i]
            found.setdefault(number, []).append((flat[i + 1] if sizes[number] < size else rank, weight * flat[i + 2]))
    return {number: sum(product for _, product in sorted(items)) for number, items in found.items()}
