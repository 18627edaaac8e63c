"""One rule per module, named mldNNN_<rule_name>.py; registered in ..registry."""
