"""The Balkan Wars (1993 miniatures rules, ../shared/rules/balkan-wars.txt), its battle
rules played as an engagement along a front: docs/balkan-wars.md."""
