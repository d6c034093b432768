-- __typename: no SQL

-- viewer
SELECT (json_build_object('__typename'::text, 'Viewer'::text, 'allComments'::text, (SELECT json_build_object('__typename'::text, 'CommentConnection'::text, 'edges'::text, COALESCE(json_agg(json_build_object('__typename'::text, 'CommentEdge'::text, 'node'::text, json_build_object('__typename'::text, 'Comment'::text, 'id'::text, replace(replace(replace(replace(encode(convert_to('Comment:' || "p1".id::text, 'UTF8'), 'base64'), E'\n', ''), '+', '-'), '/', '_'), '=', ''), 'text'::text, "p1"."text", 'post'::text, (SELECT json_build_object('title'::text, "t2"."title") FROM "app_goldenapp001"."Post" "t2" WHERE "t2".id = "p1"."postId"))) ORDER BY "p1"."$n" ASC) FILTER (WHERE "p1"."$n" <= $1), '[]'::json)) FROM (SELECT "t3".*, row_number() OVER (ORDER BY "t3"."id" ASC) AS "$n"
    FROM "app_goldenapp001"."Comment" "t3" ORDER BY "t3"."id" ASC LIMIT 2 + 1) "p1")))::text AS v
-- values: [2]
