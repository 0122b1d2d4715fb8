"""ManyIH: many-tier instruction hierarchies (SUITES.md §3). Work in progress."""
