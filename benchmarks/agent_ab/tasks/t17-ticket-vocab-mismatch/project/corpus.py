"""Procedural support-ticket corpus.

Each ticket is built from a queue-specific template plus shared filler, a
customer name, a product and an order number. Splits are generated with
different seeds; the test split uses a later "month" so some products and
names are new.
"""
import random

QUEUES = ["billing", "shipping", "account", "technical"]

_KEYWORDS = {
    "billing": ["invoice", "charged", "refund", "payment", "card", "twice", "receipt", "price", "bill"],
    "shipping": ["delivery", "parcel", "courier", "tracking", "arrived", "late", "address", "shipped", "box"],
    "account": ["password", "login", "email", "username", "locked", "reset", "profile", "verify", "sign"],
    "technical": ["crash", "error", "update", "screen", "battery", "bluetooth", "freezes", "install", "bug"],
}
_TEMPLATES = [
    "hi my name is {name} and my {product} order {order} has a problem with the {k1}",
    "{name} here , the {k1} for {product} is wrong and i need help with the {k2}",
    "hello , about order {order} : {k1} {k2} , please help . thanks {name}",
    "the {product} {k1} again and the {k2} did not work , {name}",
    "i am writing because of the {k1} on my {product} ( order {order} ) and the {k2}",
    "can someone look at my {k1} ? it is about the {product} and the {k2} . regards {name}",
]
_FILLER = ["please", "urgent", "today", "asap", "again", "still", "really", "thank", "you", "kind"]
_FIRST = ["anna", "ben", "carla", "dmitri", "eva", "farid", "greta", "hugo", "ines", "jonas", "kira",
          "lars", "maya", "nils", "olga", "piet", "quinn", "rosa", "sven", "tara", "umar", "vera"]
_PRODUCTS_OLD = ["aero", "bolt", "cirrus", "delta", "ember", "flux", "gale", "helix", "ion", "jade"]
_PRODUCTS_NEW = ["kite", "lumen", "mira", "nova", "orbit", "pulse", "quasar", "rift", "sol", "tide"]


def _ticket(rng, queue, products, name_pool):
    kw = _KEYWORDS[queue]
    k1, k2 = rng.sample(kw, 2)
    name = rng.choice(name_pool) + str(rng.randint(1, 60))
    text = rng.choice(_TEMPLATES).format(name=name, product=rng.choice(products),
                                         order=f"#{rng.randint(10000, 99999)}", k1=k1, k2=k2)
    words = text.split()
    for _ in range(rng.randint(0, 3)):
        words.insert(rng.randint(0, len(words)), rng.choice(_FILLER))
    # a fraction of tickets mention a word of another queue (real tickets do)
    if rng.random() < 0.25:
        other = rng.choice([q for q in QUEUES if q != queue])
        words.insert(rng.randint(0, len(words)), rng.choice(_KEYWORDS[other]))
    return " ".join(words)


def generate(split, n, seed=0):
    offsets = {"train": 0, "val": 1, "test": 2}
    rng = random.Random(seed * 1000 + offsets[split] * 7919 + 17)
    products = _PRODUCTS_OLD + (_PRODUCTS_NEW if split == "test" else [])
    texts, labels = [], []
    for _ in range(n):
        q = rng.randrange(len(QUEUES))
        texts.append(_ticket(rng, QUEUES[q], products, _FIRST))
        labels.append(q)
    return texts, labels
