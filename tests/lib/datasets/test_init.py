"""open_dataset (simhash_lab.datasets): the reader of each format, from the name or ``format``; a
name it cannot place, one line naming it."""
