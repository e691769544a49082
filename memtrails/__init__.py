"""memtrails: stream history into a searchable memory folder."""
