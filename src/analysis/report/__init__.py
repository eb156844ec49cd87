"""The headless report: notebook pipeline, index page and campaign overview."""
