"""Campaign folder -> validated tidy tables: manifest, parse every file, check, write Parquet."""
