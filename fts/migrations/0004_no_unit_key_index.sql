-- Units are found by unit_key through their resource (the key starts with
-- the resource id, see currentUnits): an index of keys filled in random
-- order cost a cold index more than it saved.
DROP INDEX units_unit_key;
