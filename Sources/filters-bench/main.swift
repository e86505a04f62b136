print("filters-bench")
