-- The turn whose result the teammate still owes the lead: set in the transaction of the turn's first save (with the
-- inputs that started it), cleared once the broker acknowledged the result. A replica that adopts a teammate with no
-- turn in progress and a result still owed (its host died between the turn's last save and the send) sends it then:
-- the id is derived from the turn, so a result that was in fact sent dedupes in the lead's inbox.
ALTER TABLE teammate.teammates ADD COLUMN result_owed TEXT;
