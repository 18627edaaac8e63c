"""Whether a model's forward runs over the nodes of a graph, so the leading axis of its tensors counts nodes, not
samples of a mini-batch (MLD041).

`forward(self, graph, feats)` that reads the graph (`graph.ndata["h"] = feats`, `graph.update_all(...)`, a DGL or
PyG layer handed it: `self.conv(x, edge_index)` with `self.conv = GCNConv(...)`) holds node features of one whole or
batched graph: (num_nodes, ...). squeeze() there drops a feature axis of 1; the node axis is never 1 on real graphs.
Also a module built only as a part of such forwards (`self.discriminator = Discriminator(d)` in a class whose forward
reads a graph, gxn's IndexSelect), run on its node tensors. A readout before the squeeze (`dgl.mean_nodes`,
`global_mean_pool`, a `SumPooling` layer) or a reshape (rows regrouped per graph) gives one row per graph of the
batch, which can be one: still reported.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext

GRAPH_LIBRARIES = ("dgl.", "torch_geometric.")
# what a DGL graph (or a PyG Data) offers: a parameter read through one of them is a graph
GRAPH_API = {"ndata", "edata", "srcdata", "dstdata", "update_all", "apply_edges", "local_scope", "in_degrees",
             "out_degrees", "batch_num_nodes", "batch_num_edges", "number_of_nodes", "num_nodes", "num_src_nodes",
             "num_dst_nodes", "srcnodes", "dstnodes", "edge_index"}
# the graph libraries' readouts: one row per graph after them
READOUT_WORDS = ("pool", "readout", "set2set", "_nodes", "_edges", "dense_batch")
RESHAPES = {"view", "reshape"}


def over_graph_nodes(forward: ast.FunctionDef, cls: ast.ClassDef, before: ast.AST, ctx: ModuleContext) -> bool:
    """`forward` (of `cls`) reads a graph and no readout of a graph library runs in it before `before`; or `cls` is
    built in this module only as a layer of such forwards, each calling it before any readout."""
    if reads_graph(forward, ctx):
        return not _readout_before(forward, before.lineno, ctx)
    users = ctx.memo(("graph-nodes-users", cls.name), lambda: _graph_users(cls.name, ctx))
    return bool(users) and all(users)


def reads_graph(func: ast.FunctionDef, ctx: ModuleContext) -> bool:
    """A parameter of `func` is annotated as a graph library's type, read through a graph's API, or handed to a
    graph library's function or layer."""
    return ctx.memo(("reads-graph", func), lambda: _reads_graph(func, ctx))


def _reads_graph(func: ast.FunctionDef, ctx: ModuleContext) -> bool:
    arguments = func.args
    params = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs} - {"self"}
    annotated = [a.annotation for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs if a.annotation]
    if any((ctx.qualname(a) or "").startswith(GRAPH_LIBRARIES) for a in annotated):
        return True
    for node in ctx.within(ast.Attribute, func):
        if node.attr in GRAPH_API and isinstance(node.value, ast.Name) and node.value.id in params:
            return True
    for call in ctx.within(ast.Call, func):
        handed = any(isinstance(a, ast.Name) and a.id in params for a in call.args)
        if handed and _graph_library_callee(call, ctx):
            return True
    return False


def _graph_library_callee(call: ast.Call, ctx: ModuleContext) -> bool:
    """`dgl.sum_nodes(...)`, `self.conv(...)` with `self.conv = GCNConv(...)` or a class of this module built on one."""
    name = ctx.call_name(call) or ctx.constructed(call.func) or ""
    return name.startswith(GRAPH_LIBRARIES) or _local_graph_class(name, ctx)


def _local_graph_class(name: str, ctx: ModuleContext, depth: int = 3) -> bool:
    cls = ctx.classes.get(name)
    return cls is not None and depth > 0 and any(
        (base := ctx.qualname(b) or "").startswith(GRAPH_LIBRARIES) or _local_graph_class(base, ctx, depth - 1)
        for b in cls.bases)


def _readout_before(func: ast.FunctionDef, line: int, ctx: ModuleContext) -> bool:
    """A graph library's readout, or a view or reshape (`x.reshape(batch_size, num_nodes, d)`: rows regrouped per
    graph, mmf's KRISP), in `func` up to `line`."""
    for call in ctx.within(ast.Call, func):
        if call.lineno > line:
            break
        name = ctx.call_name(call) or ctx.constructed(call.func) or ""
        if name.startswith(GRAPH_LIBRARIES) and any(w in name.rsplit(".", 1)[-1].lower() for w in READOUT_WORDS):
            return True
        if name == "torch.reshape" or not name and ctx.method_name(call) in RESHAPES:
            return True
    return False


def _graph_users(name: str, ctx: ModuleContext) -> list[bool]:
    """For each place this module builds class `name`: whether it is kept as `self.attr` of a class whose forward
    reads a graph and calls it before any readout or reshape."""
    users = []
    for call in ctx.by_type.get(ast.Call, ()):
        if not (isinstance(call.func, ast.Name) and call.func.id == name):
            continue
        holder = ctx.parent(call)
        target = holder.targets[0] if isinstance(holder, ast.Assign) and len(holder.targets) == 1 else None
        owner = ctx.enclosing_class(call)
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
                and owner is not None):
            users.append(False)
            continue
        forward = next((f for f in owner.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
        runs = [c for c in ctx.within(ast.Call, forward) if isinstance(c.func, ast.Attribute)
                and c.func.attr == target.attr and isinstance(c.func.value, ast.Name)
                and c.func.value.id == "self"] if forward is not None else []
        users.append(bool(runs) and reads_graph(forward, ctx)
                     and not any(_readout_before(forward, r.lineno, ctx) for r in runs))
    return users
