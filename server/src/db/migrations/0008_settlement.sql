-- Raises when a batched settlement finds its inputs inconsistent (e.g. a hold already released),
-- so the whole statement rolls back and the batch is retried call by call.
CREATE FUNCTION tollbooth_assert(condition boolean, message text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF condition IS NOT TRUE THEN
    RAISE EXCEPTION '%', message USING ERRCODE = 'P0001';
  END IF;
  RETURN true;
END $$;
