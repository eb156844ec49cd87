"""Collector: run real tools on loopback or network-namespace testbeds
following a plan, and write a campaign folder that ingest reads as is."""
