-- viewer
SELECT (json_build_object('allPosts'::text, (SELECT json_build_object('edges'::text, COALESCE(json_agg(json_build_object('node'::text, json_build_object('title'::text, "p1"."title", 'rating'::text, "p1"."rating")) ORDER BY "p1"."$n" ASC) FILTER (WHERE "p1"."$n" <= $1), '[]'::json)) FROM (SELECT "t2".*, row_number() OVER (ORDER BY "t2"."rating" DESC, "t2"."title" ASC, "t2"."id" ASC) AS "$n"
    FROM "app_goldenapp001"."Post" "t2" WHERE ("t2"."title" ILIKE $2::text AND "t2"."status" = ANY($3::text[]) AND "t2"."rating" >= $4::integer) ORDER BY "t2"."rating" DESC, "t2"."title" ASC, "t2"."id" ASC LIMIT 10 + 1) "p1")))::text AS v
-- values: [10,"%graph%",["PUBLISHED","ARCHIVED"],3]
