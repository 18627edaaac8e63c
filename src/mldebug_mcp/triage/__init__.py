"""Triage: the cause catalogue, the decision tree, symptom matching, hypothesis ranking and the
advice checker. Pure: data and text in, models out; the YAML under data/ is the knowledge."""
