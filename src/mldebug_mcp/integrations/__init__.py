"""Callbacks for training frameworks, run in the user's training process: the Hugging Face Trainer
(`integrations.hf.MldebugCallback`) and Lightning (`integrations.lightning.MldebugCallback`).

Neither framework is a dependency: each module imports its framework only when its callback class is
first used, and says what to install when it is missing. The callbacks run the cheap runtime checks on
the first batch when training starts and read the logged loss curve when it ends; whatever goes wrong
inside them is reported as a warning, never raised into the training loop.

Like the CLI and the server, these are faces: they reach the checks through services.diagnose and
render with render/; the curve reader (analysis.curve) is called directly on the in-memory history,
which has no file for services.curves to read.
"""
