"""Playing a wall one group at a time, as the contestants did (issue 23): the rules engine
(:mod:`.rules`), the conversation with a model (:mod:`.runner`), the play log
(:mod:`.log`) and its scoring (:mod:`.scoring`)."""
