-- node
SELECT ((SELECT json_build_object('__typename'::text, 'User'::text, 'id'::text, replace(replace(replace(replace(encode(convert_to('User:' || "t1".id::text, 'UTF8'), 'base64'), E'\n', ''), '+', '-'), '/', '_'), '=', ''), 'username'::text, "t1"."username") FROM "app_goldenapp001"."User" "t1" WHERE "t1".id = $1::uuid))::text AS v
-- values: ["00000000-0000-4000-8000-000000000001"]
