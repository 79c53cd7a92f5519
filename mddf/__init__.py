"""The margin-distribution deep forest (Lv, Yang and Zhou)."""
