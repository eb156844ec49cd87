"""netrepro: raw outputs of network benchmark tools -> tidy tables,
hypothesis verdicts, figures and reports."""

__version__ = "0.1.0"
