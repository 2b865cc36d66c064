"""Reading world XML: the safe tree, the lenient reader, preprocessing, expressions, values, budgets."""
