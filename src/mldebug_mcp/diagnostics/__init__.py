"""Runtime diagnostics: run the checks on a debug spec, in a child process or in this process.

`checks/` is the part that touches torch and runs in the user's interpreter; `launch` starts and
watches the child, `events` reads and checks the JSON events it writes, `process_tree` finds, measures
and kills everything the child starts; `target` parses FILE.py:FUNCTION and module:FUNCTION. What
to run, where and under which limits is decided by services/diagnose.py.
"""
