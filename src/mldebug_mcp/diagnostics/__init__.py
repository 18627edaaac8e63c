"""Runtime diagnostics: run the checks on a debug spec, in a child process or in this process.

`checks/` is the part that touches torch and runs in the user's interpreter; `launch` starts and
watches the child and reads its JSON; `target` parses FILE.py:FUNCTION and module:FUNCTION. What
to run, where and under which limits is decided by services/diagnose.py.
"""
