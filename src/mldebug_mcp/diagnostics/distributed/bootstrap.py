"""The few lines every process of a distributed run starts with, in the user's interpreter.

They make `_mldebug_diag` a package over the diagnostics folder without running its __init__, so that
`_mldebug_diag.distributed.<entry>` and its relative imports of `..checks` load by path: the user's
interpreter needs torch, not this package. argv: the diagnostics folder, the entry module (agent or
rank), then the entry's own arguments.
"""

PACKAGE = "_mldebug_diag"

BOOTSTRAP = """\
import importlib, sys, types
p = types.ModuleType('_mldebug_diag'); p.__path__ = [sys.argv[1]]; sys.modules['_mldebug_diag'] = p
entry = importlib.import_module('_mldebug_diag.distributed.' + sys.argv[2])
sys.exit(entry.main(sys.argv[3:]))
"""
