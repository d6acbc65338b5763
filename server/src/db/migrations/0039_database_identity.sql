-- A random identity for this database (decision 0042): the processes of one machine on the same
-- database share a directory for their answer journals, named by it, so a process reads the
-- journal of one that died. A copied database keeps the identity; its name (current_database())
-- is part of the directory's name too.
CREATE TABLE database_identity (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  id uuid NOT NULL DEFAULT gen_random_uuid()
);
INSERT INTO database_identity DEFAULT VALUES;
