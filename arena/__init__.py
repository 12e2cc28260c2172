"""arena: a tournament and bot-competition harness for hidden-information card games."""

__version__ = "0.1.0"
