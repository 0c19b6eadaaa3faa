int helper_answer() { return 42; }
