"""What a value is: the kind of a tensor expression at a point in the code.

``kind_of(expr, ctx)`` answers 'softmax' or 'sigmoid' (probabilities), 'log_softmax' (log-probabilities),
'relu' (a ReLU's output), 'logits' (a Linear layer's output) or None (unknown); ``traced_kind`` also says
where the value got it (the nodes a finding can point at). The value is followed through: the assignment
that reaches the use (both sides of an `if` that may skip it), tuple unpacking; modules kept in attributes
(``self.act = nn.Sigmoid()`` then ``self.act(x)``), also of an object handed in (``pl_module.head``);
``nn.Sequential`` (its last module decides: written out, from a list, an OrderedDict or ``add_module``),
kept in an attribute or handed to another module's ``__init__``; the returns of functions, methods and a
model's ``forward`` (every return must agree), in this file or, through the project index, in another file
of the run; methods that keep what the values mean (``.view``, ``.to``, indexing); buffers filled slot by
slot; ``exp`` of log-probabilities. Unknown is the answer whenever a step is not visible: rules fire on a
known kind only.

Also: parts joined by torch.cat/stack, models run through a wrapper (DataParallel, torch.compile) or
with a replaced pretrained head (`model.fc = ...`), a parameter's value asked of the callers (a base class's
loop calling a subclass's override runs the subclass's forward).

Modules, one job each: vocabulary (the torch names), traced (a kind with its origins), parameters
(defaults and call sites), stores (assignments other than to a name), values and callees (the two halves of
the walker), walk (the walker and the questions), roots (the parameter a value comes from, asked of the
callers), facts (what files of one run tell each other: models, their dict entries and parts, factories,
subclasses of a base class whose step feeds a loss).
Nothing here imports the lint package at run time (context.py uses it for the project facts).
"""

from .choices import module_names
from .facts import (
    ANY_MODEL,
    FACTORY,
    FED,
    SUBCLASS,
    class_aliases,
    fed_names,
    model_names,
    named_after,
    project_facts,
    traced_factory,
)
from .handoffs import HAND, SLOT, handoff_facts, slot_names
from .instances import each_returned_model, traced_method
from .parameters import (
    call_sites,
    class_constant,
    method_of,
    parameter_default,
    parameter_of,
)
from .roots import handed_kinds, parameter_root
from .traced import Traced
from .values import reaching_values
from .vocabulary import (
    ACTIVATIONS,
    DEPTH,
    LOG_SOFTMAX,
    LOGITS,
    PROBABILITIES,
    RELU,
    SIGMOID,
    SOFTMAX,
)
from .walk import (
    kind_of,
    module_output,
    output_kind,
    returned_kind,
    traced_element,
    traced_kind,
    traced_kind_any,
    traced_module_output,
    traced_output,
    traced_return,
)

__all__ = [
    "ACTIVATIONS",
    "ANY_MODEL",
    "DEPTH",
    "FACTORY",
    "FED",
    "HAND",
    "LOGITS",
    "LOG_SOFTMAX",
    "PROBABILITIES",
    "RELU",
    "SIGMOID",
    "SLOT",
    "SOFTMAX",
    "SUBCLASS",
    "Traced",
    "call_sites",
    "class_aliases",
    "class_constant",
    "each_returned_model",
    "fed_names",
    "handed_kinds",
    "handoff_facts",
    "kind_of",
    "method_of",
    "model_names",
    "module_names",
    "module_output",
    "named_after",
    "output_kind",
    "parameter_default",
    "parameter_of",
    "parameter_root",
    "project_facts",
    "reaching_values",
    "returned_kind",
    "slot_names",
    "traced_element",
    "traced_factory",
    "traced_kind",
    "traced_kind_any",
    "traced_method",
    "traced_module_output",
    "traced_output",
    "traced_return",
]
