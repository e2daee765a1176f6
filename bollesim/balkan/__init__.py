"""The Balkan Wars (a 1993 set of miniatures rules for the First and Second Balkan Wars),
its battle rules played as an engagement along a front: docs/balkan-wars.md."""
