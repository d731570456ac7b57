"""Invented rows for an array<object> field of a world published without its app's data: what a site of its kind shows.

A world's `array<object>` field (products, tracks, accounts, messages) names the rows its pages show but gives
none; without the app's `initial_data.js` (data.py) the importer invents SAMPLE_ROWS of them. Each row keeps its
invented key (`product-1`: what the world's "{ITEM_ANY}" parameters range over), and takes the columns a row of
that kind has on a real site (a product: name, price, rating, brand, description; a track: title, artist, album,
length), chosen by the field's last nouns (`search_results_tracks` -> track) and, where one noun means different
things (a bank's accounts, a channel of videos or of chat), by the app's category (`Neobank-Revolut_app`). The
values are fixed here, the same for every world of that kind: no randomness, no copy of another domain; a second
field of one kind in a world (suggested friends beside friends) takes the next rows. A field of no kind known here
keeps rows that are only named (`Product 1`).
"""

from __future__ import annotations

import re
from typing import Any

from fsmc import ir
from fsmc.formats.awm.importer import SAMPLE_ROWS, DataField, Importer, fsmc_name

__all__ = ["KINDS", "Samples", "row_kind"]

JSON = Any
Rows = dict[str, tuple[JSON, ...]]
# Trailing words of a field's name that say how rows are listed, not what they are (`flight_options` -> flight).
_LISTING = {"option", "list", "item", "result", "entry", "record"}
# The kind of app a noun of two meanings is read in, from the words of its `meta.app`.
_APPS = {
    "finance": r"bank|financ|payment|money|wallet|trading|crypto|invest",
    "music": r"music|audio|podcast",
    "meditation": r"meditat|mindful|sleep",
    "video": r"video.shar|video.stream|youtube",
    "notes": r"note",
    "microblog": r"microblog|twitter",
    "blog": r"(?<!micro)blogging|publishing",
    "chat": r"chat|messaging|collaboration|meetings",
    "mail": r"email.client|mail",
    "travel": r"flight|travel|hotel|trip|booking",
}

# (nouns, kind of app or "" for any, columns): the first entry whose noun a field's name ends in, read in an app
# of its kind, gives the columns; each column holds one value per sample row.
KINDS: tuple[tuple[str, str, Rows], ...] = (
    # ---- shops
    ("product cart", "", {
        "name": ("Wireless noise-cancelling earbuds", "Stainless steel rice cooker", "Men's waterproof hiking jacket",
                 "4K streaming stick", "Cast iron skillet, 12 inch", "Women's trail running shoes"),
        "price": (59.0, 89.0, 129.0, 39.0, 34.0, 95.0), "rating": (4.6, 4.4, 4.7, 4.5, 4.8, 4.3),
        "brand": ("Soundcore", "Zojirushi", "Columbia", "Roku", "Lodge", "Salomon"),
        "description": ("Active noise cancelling, 30 hours of battery and a pocket-sized charging case.",
                        "Cooks white, brown and sushi rice and keeps it warm for up to 12 hours.",
                        "Breathable waterproof shell with taped seams, a hood and zipped pockets.",
                        "Streams in 4K HDR with a voice remote; plugs straight into the TV.",
                        "Pre-seasoned and oven-safe, for searing, baking and frying.",
                        "Grippy lugged soles and a cushioned midsole for rough trails.")}),
    ("grocery_cart grocery", "", {
        "name": ("Organic bananas, 1 kg", "Whole milk, 2 litres", "Sourdough loaf"),
        "price": (2.0, 3.0, 4.0), "rating": (4.5, 4.7, 4.6),
        "brand": ("Fresh Farms", "Meadow Dairy", "Baker's Table"),
        "description": ("Ripe Fairtrade bananas, picked green and ripened in store.",
                        "Fresh pasteurised whole milk from grass-fed cows.",
                        "Slow-fermented sourdough with a crisp crust, baked this morning.")}),
    ("order", "", {
        "number": ("Order 40518", "Order 40422", "Order 40317"),
        "placed": ("2025-10-12", "2025-09-28", "2025-09-03"), "total": (59.0, 218.0, 129.0),
        "status": ("Delivered", "Shipped", "Processing"),
        "items": ("1 item: wireless earbuds", "2 items: rice cooker and jacket", "1 item: hiking jacket")}),
    ("address", "", {
        "label": ("Home", "Work", "Parents"), "recipient": ("Alex Morgan", "Alex Morgan", "Sam Morgan"),
        "street": ("12 Harbor Road", "500 Market Street, Floor 5", "7 Elm Court"),
        "city": ("Portland, OR", "San Francisco, CA", "Boise, ID"), "zip": ("97201", "94107", "83702"),
        "phone": ("+1 503 555 0142", "+1 415 555 0100", "+1 208 555 0187")}),
    ("category", "music", {
        "name": ("Pop", "Hip-hop", "Chill"), "playlists": (48, 36, 27),
        "description": ("The biggest songs of the moment, updated every Friday.",
                        "New rap and hip-hop from the artists everyone is talking about.",
                        "Laid-back beats and mellow tunes to unwind to.")}),
    ("category", "", {
        "name": ("Electronics", "Home & kitchen", "Outdoor clothing"), "products": (1240, 860, 530),
        "description": ("Headphones, phones, tablets and smart home devices.",
                        "Cookware, small appliances and everything for the table.",
                        "Jackets, boots and layers for every season.")}),
    ("payment_method", "", {
        "name": ("Visa ending 4242", "Mastercard ending 5100", "PayPal"),
        "holder": ("Alex Morgan", "Alex Morgan", "alex.morgan@example.com"),
        "expires": ("09/28", "03/27", "No expiry"), "status": ("Default", "Saved", "Saved")}),
    # ---- money
    ("account", "finance", {
        "name": ("Main account", "Savings", "Travel pocket"), "currency": ("USD", "USD", "USD"),
        "balance": (2450.0, 8120.0, 315.0), "number": ("•••• 4821", "•••• 7730", "•••• 1194"),
        "description": ("Your everyday account for spending and bills.",
                        "Earns interest, paid out every month.",
                        "Money set aside for your next trip, ready to spend abroad.")}),
    ("account", "", {
        "name": ("Northwind Outfitters", "Harbor Coffee Co.", "Bright Pages Books"),
        "plan": ("Growth", "Starter", "Growth"), "contacts": (12400, 3100, 7800),
        "owner": ("Alex Morgan", "Priya Shah", "Sam Lee")}),
    ("beneficiary payee", "", {
        "name": ("Maya Chen", "Daniel Okafor", "City Property Rentals"),
        "bank": ("Chase", "Wells Fargo", "Bank of America"), "account": ("•••• 3318", "•••• 9042", "•••• 5527"),
        "reference": ("Dinner split", "Football tickets", "Rent"),
        "last_payment": ("$42.50 on October 12", "$120.00 on October 3", "$1,450.00 on October 1")}),
    ("card", "", {
        "name": ("Visa debit", "Virtual card", "Metal card"), "number": ("•••• 4821", "•••• 6610", "•••• 2093"),
        "expires": ("09/28", "01/27", "11/29"), "status": ("Active", "Active", "Frozen"),
        "description": ("Your physical card for everyday spending, in shops and online.",
                        "A card for shopping online that you can freeze or replace at any time.",
                        "Stainless steel card with higher limits and travel insurance.")}),
    ("exchange_pair pair", "", {
        "name": ("US dollar to euro", "US dollar to British pound", "US dollar to Japanese yen"),
        "rate": ("1 USD = 0.9154 EUR", "1 USD = 0.7863 GBP", "1 USD = 149.82 JPY"),
        "change": ("+0.3% today", "-0.1% today", "+0.2% today")}),
    ("topup_method method", "", {
        "name": ("Apple Pay", "Bank transfer", "Debit card ending 4242"),
        "fee": ("Free", "Free", "Free"), "arrives": ("Instantly", "Within 1 working day", "Instantly")}),
    ("transaction payment", "", {
        "name": ("Harbor Coffee Co.", "City Property Rentals", "Salary"),
        "amount": (4.0, 950.0, 2800.0), "date": ("2025-10-14", "2025-10-01", "2025-09-30"),
        "category": ("Eating out", "Rent", "Income")}),
    ("bill", "", {
        "name": ("Video visit with Dr. Priya Shah", "Prescription refill", "Therapy session"),
        "amount": (49.0, 12.0, 90.0), "due": ("2025-11-01", "2025-11-05", "2025-11-12"),
        "status": ("Due", "Paid", "Due")}),
    # ---- music and listening
    ("track song", "meditation", {
        "title": ("Rainy night in the city", "Ocean drift", "Forest at dusk"),
        "narrator": ("Eve Lewis", "Kessonga", "Dora Kamau"), "length": ("45:00", "30:00", "60:00"),
        "description": ("Soft rain and distant traffic to help you drift off.",
                        "Slow waves rolling in on a quiet beach.",
                        "Birdsong fading into crickets as the light goes.")}),
    ("track song", "", {
        "title": ("Golden Hour", "Midnight Drive", "Paper Planes", "Slow Motion", "Northern Lights", "Heartbeat"),
        "artist": ("Lena Park", "The Tides", "Noah Reyes", "Ivy Hart", "Lena Park", "The Tides"),
        "album": ("Summer Lights", "Neon Roads", "Open Sky", "Late Bloom", "Summer Lights", "Neon Roads"),
        "length": ("3:42", "4:05", "3:18", "3:56", "4:21", "3:09")}),
    ("album", "", {
        "title": ("Summer Lights", "Neon Roads", "Open Sky"), "artist": ("Lena Park", "The Tides", "Noah Reyes"),
        "released": ("2024", "2023", "2025"), "tracks": (12, 10, 14)}),
    ("artist", "", {
        "name": ("Lena Park", "The Tides", "Noah Reyes"), "genre": ("Indie pop", "Synth rock", "Folk"),
        "listeners": ("2.4M monthly listeners", "870K monthly listeners", "1.1M monthly listeners")}),
    ("playlist", "video", {
        "title": ("Weeknight dinners", "Science explained", "Morning workouts"),
        "owner": ("Kitchen Table", "Curious Minds", "Move Daily"), "videos": (24, 18, 12),
        "description": ("Quick recipes you can make in under 30 minutes.",
                        "Big ideas in science, one short video at a time.",
                        "Short routines to start your day with energy.")}),
    ("playlist", "", {
        "name": ("Morning Coffee", "Focus Flow", "Road Trip Classics", "Fresh Pop", "Hip-hop Classics",
                 "Evening Chill"),
        "owner": ("Editors", "Editors", "Alex Morgan", "Editors", "Editors", "Alex Morgan"),
        "tracks": (50, 80, 64, 70, 60, 45),
        "description": ("Gentle acoustic songs to start the day.", "Instrumental beats to help you concentrate.",
                        "Singalong favourites for the open road.", "New pop songs, updated every week.",
                        "The hip-hop tracks that defined a decade.", "Mellow songs to wind down with.")}),
    # ---- meditation and learning
    ("session", "", {
        "title": ("Breathe and reset", "Letting go of stress", "Kind mind", "Deep focus", "Flow state",
                  "Single-tasking"),
        "narrator": ("Andy", "Eve", "Dora", "Kessonga", "Andy", "Eve"), "minutes": (10, 15, 10, 20, 25, 15),
        "description": ("A short breathing exercise to calm a busy mind.",
                        "Notice tension in the body and let it soften.",
                        "Meet yourself with a little more kindness today.",
                        "Settle into steady attention before a big task.",
                        "Music and guidance to stay in the zone.",
                        "One thing at a time, with your full attention.")}),
    ("course", "meditation", {
        "title": ("Basics of meditation", "Managing anxiety", "Sleep better"),
        "sessions": (10, 30, 14), "narrator": ("Andy", "Eve", "Kessonga"),
        "description": ("Learn the essentials of meditation in ten short sessions.",
                        "Skills to relate differently to anxious thoughts.",
                        "Wind down each evening and build a calmer bedtime.")}),
    ("course", "", {
        "title": ("Machine Learning Foundations", "Writing for the Web", "Financial Accounting Basics",
                  "Python for Everybody", "Introduction to Psychology", "Project Management Essentials"),
        "provider": ("Stanford University", "University of Michigan", "Wharton", "University of Michigan",
                     "Yale University", "Google"),
        "rating": (4.8, 4.6, 4.7, 4.8, 4.9, 4.7),
        "length": ("11 weeks", "4 weeks", "6 weeks", "8 weeks", "5 weeks", "6 weeks"),
        "level": ("Beginner", "Intermediate", "Beginner", "Beginner", "Beginner", "Beginner")}),
    ("specialization cert certificate", "", {
        "title": ("Data Analytics", "UX Design", "Project Management"),
        "provider": ("Google", "Google", "IBM"), "courses": (8, 7, 6), "length": ("6 months", "6 months", "4 months"),
        "level": ("Beginner", "Beginner", "Intermediate")}),
    # ---- work: projects, code, tickets, databases
    ("project", "", {
        "name": ("Website redesign", "Q4 product launch", "Customer onboarding"),
        "owner": ("Priya Shah", "Daniel Okafor", "Maya Chen"), "status": ("On track", "At risk", "On track"),
        "due": ("2025-12-05", "2025-11-20", "2026-01-15"),
        "description": ("New home page, navigation and a refreshed style guide.",
                        "Everything marketing, sales and support need for launch day.",
                        "Welcome emails, setup checklist and first-week check-ins.")}),
    ("section", "notes", {
        "name": ("Meeting notes", "Ideas", "Travel plans"), "pages": (12, 8, 5),
        "updated": ("2025-10-14", "2025-10-02", "2025-09-21")}),
    ("section", "", {
        "name": ("To do", "In progress", "Done"), "tasks": (6, 4, 11),
        "description": ("Work that is ready to be picked up.", "What the team is working on now.",
                        "Finished this sprint.")}),
    ("task todo", "", {
        "name": ("Draft launch announcement", "Review pricing page copy", "Book venue for team offsite"),
        "assignee": ("Priya Shah", "Daniel Okafor", "Maya Chen"), "due": ("2025-11-03", "2025-11-07", "2025-11-14"),
        "status": ("In progress", "To do", "Done"),
        "description": ("A short post for the blog and the newsletter, ready for review by Friday.",
                        "Check the plans table and the FAQ against the new prices.",
                        "Two days in November for twenty people, with a meeting room.")}),
    ("repository repo", "", {
        "name": ("lighthouse", "paperboat", "orbit"),
        "description": ("A fast static site generator with live reload.",
                        "Offline-first notes app for the web.",
                        "Lightweight job queue backed by Postgres."),
        "language": ("TypeScript", "JavaScript", "Go"), "stars": (1280, 342, 2150),
        "updated": ("2025-10-14", "2025-10-09", "2025-09-30")}),
    ("branch", "", {
        "name": ("main", "develop", "feature/search-filters"),
        "commit": ("Merge pull request: dark mode", "Bump dependencies", "Add filters to search results"),
        "author": ("Maya Chen", "Daniel Okafor", "Priya Shah"), "updated": ("2025-10-14", "2025-10-13", "2025-10-10")}),
    ("pull pull_request merge_request", "", {
        "title": ("Add dark mode to settings", "Fix pagination on search results", "Upgrade to Node 20"),
        "author": ("Maya Chen", "Daniel Okafor", "Priya Shah"), "status": ("Open", "Open", "Merged"),
        "branch": ("feature/dark-mode", "fix/search-pagination", "chore/node-20"), "comments": (4, 2, 7)}),
    ("issue bug", "", {
        "title": ("Search returns no results for quoted terms", "Broken link in the README",
                  "Support exporting to CSV"),
        "label": ("Bug", "Documentation", "Enhancement"), "author": ("Sam Lee", "Maya Chen", "Daniel Okafor"),
        "status": ("Open", "Open", "Closed"), "comments": (3, 1, 8)}),
    ("label tag", "", {
        "name": ("Bug", "Enhancement", "Documentation"),
        "description": ("Something isn't working as it should.", "A new feature or an improvement.",
                        "Changes to guides, examples or the README.")}),
    ("pipeline build", "", {
        "name": ("Build and test", "Deploy to staging", "Nightly checks"), "status": ("Passed", "Running", "Failed"),
        "branch": ("main", "develop", "main"), "length": ("4m 12s", "2m 40s", "9m 05s")}),
    ("ticket", "", {
        "subject": ("Can't reset my password", "Refund for a duplicate charge", "How do I export my data?"),
        "requester": ("Sam Lee", "Maya Chen", "Daniel Okafor"), "status": ("Open", "Pending", "Resolved"),
        "priority": ("High", "Medium", "Low"),
        "description": ("The reset link in the email says it has expired, even when I open it right away.",
                        "I was charged twice for my October invoice and would like one payment refunded.",
                        "I would like a copy of all my projects and files before our team moves.")}),
    ("base", "", {
        "name": ("Content calendar", "Product roadmap", "Hiring pipeline"), "tables": (4, 6, 3),
        "updated": ("2025-10-14", "2025-10-11", "2025-09-29"),
        "description": ("Posts, owners and publish dates for every channel.",
                        "Features, releases and who is working on what.",
                        "Open roles, candidates and interview stages.")}),
    ("table", "", {
        "name": ("Campaigns", "Contacts", "Tasks"), "records": (128, 940, 57), "fields": (9, 12, 7)}),
    ("record row", "", {
        "title": ("Spring sale brief", "Q3 webinar", "Launch email"), "status": ("In review", "Scheduled", "Draft"),
        "owner": ("Priya Shah", "Daniel Okafor", "Maya Chen"), "due": ("2025-11-02", "2025-11-18", "2025-11-25")}),
    ("automation", "", {
        "name": ("Notify owner on new record", "Weekly status email", "Archive finished tasks"),
        "trigger": ("When a record is created", "Every Monday at 9:00", "When status is Done"),
        "action": ("Send a Slack message", "Send an email", "Move the record"), "status": ("On", "On", "Off")}),
    ("experiment", "", {
        "name": ("Checkout button colour", "Free shipping banner", "Shorter sign-up form"),
        "status": ("Running", "Draft", "Concluded"), "variations": (2, 3, 2),
        "traffic": ("50% of visitors", "30% of visitors", "100% of visitors")}),
    ("audience", "", {
        "name": ("Returning visitors", "Mobile shoppers", "First-time buyers"),
        "description": ("Visited at least twice in the last 30 days.", "On a phone or tablet.",
                        "Placed their first order this month.")}),
    ("flag", "", {
        "name": ("New checkout flow", "Recommendations carousel", "Dark mode"), "status": ("On", "Off", "On"),
        "environments": ("Production, staging", "Staging", "Production")}),
    # ---- marketing
    ("campaign", "", {
        "name": ("Autumn sale announcement", "Welcome back offer", "October newsletter"),
        "status": ("Sent", "Scheduled", "Draft"), "recipients": (12400, 3100, 9800),
        "sent": ("2025-10-10", "2025-10-20", "")}),
    ("flow", "", {
        "name": ("Welcome series", "Abandoned cart", "Win-back"),
        "trigger": ("Joins the newsletter list", "Starts checkout", "No order in 90 days"),
        "status": ("Live", "Live", "Draft")}),
    ("segment audience_list", "", {
        "name": ("Engaged subscribers", "VIP customers", "Lapsed buyers"), "members": (8200, 640, 2100),
        "description": ("Opened or clicked in the last 90 days.", "More than five orders in a year.",
                        "No purchase in the last six months.")}),
    ("list", "", {
        "name": ("Newsletter", "Product updates", "Event invitations"), "members": (15300, 6200, 1800),
        "updated": ("2025-10-14", "2025-10-08", "2025-09-30")}),
    ("form", "", {
        "name": ("Footer newsletter sign-up", "Welcome pop-up", "Back-in-stock alert"),
        "type": ("Embedded", "Pop-up", "Embedded"), "status": ("Live", "Live", "Draft")}),
    # ---- chat, mail, meetings
    ("channel", "video", {
        "name": ("Kitchen Table", "Curious Minds", "Move Daily"),
        "subscribers": ("1.2M subscribers", "640K subscribers", "310K subscribers"), "videos": (420, 185, 260),
        "description": ("Easy home cooking for busy weeknights, with a new recipe every Sunday.",
                        "Big questions in science, each answered in under ten minutes.",
                        "Home workouts for every level, from ten-minute stretches to full sessions.")}),
    ("channel", "", {
        "name": ("general", "design", "announcements"), "members": (48, 12, 48),
        "topic": ("Company-wide news and questions.", "Mockups, reviews and feedback on design work.",
                  "Important updates from the leadership team.")}),
    ("workspace", "", {
        "name": ("Northwind Design", "Harbor Engineering", "Book Club"), "members": (48, 120, 9),
        "description": ("The design studio's home for projects and feedback.",
                        "Engineering teams, incidents and releases.",
                        "Monthly picks and reading chat.")}),
    ("team", "", {
        "name": ("Marketing", "Product design", "Customer support"), "members": (14, 8, 22),
        "description": ("Campaigns, launches and brand.", "Research, design reviews and the design system.",
                        "Help centre, escalations and customer feedback.")}),
    ("thread", "microblog", {
        "name": ("Maya Chen", "Daniel Okafor", "Sam Lee"),
        "text": ("A thread on what we learned shipping our first app, and what we would do differently.",
                 "Five things nobody tells you about working remotely.",
                 "How we halved our build times: a short thread."),
        "posted": ("2h", "5h", "1d")}),
    ("message dm chat thread conversation", "", {
        "name": ("Maya Chen", "Daniel Okafor", "Priya Shah", "Sam Lee", "Jordan Ellis", "Ana Souza"),
        "text": ("Can we move tomorrow's meeting to 3pm?", "The new designs look great, thanks!",
                 "I've shared the report, let me know what you think.", "Lunch at 12:30 today?",
                 "The release notes are ready for review.", "Thanks for covering the support queue!"),
        "time": ("09:41", "11:15", "14:02", "10:05", "13:20", "16:48"),
        "last_seen": ("Active now", "Active 5 min ago", "Active 1 hour ago", "Active now", "Active yesterday",
                      "Active 20 min ago"),
        "status": ("Read", "Delivered", "Read", "Read", "Delivered", "Read"), "unread": (2, 0, 1, 0, 3, 0)}),
    ("email mail", "", {
        "subject": ("Your weekly project summary", "Lunch on Friday?", "Invoice 2041 is ready"),
        "sender": ("Project updates", "Maya Chen", "Billing team"),
        "preview": ("Three tasks were completed and two are due this week.",
                    "There's a new ramen place near the office, want to try it?",
                    "Your invoice for October is attached."),
        "received": ("2025-10-14", "2025-10-13", "2025-10-12")}),
    ("meeting event calendar_event appointment", "chat", {
        "title": ("Weekly product sync", "Design review", "All-hands"),
        "date": ("2025-11-03", "2025-11-04", "2025-11-07"), "time": ("10:00", "14:30", "16:00"),
        "host": ("Priya Shah", "Maya Chen", "Daniel Okafor")}),
    ("appointment visit", "", {
        "title": ("Video visit: general medicine", "Therapy session", "Follow-up: allergies",
                  "Annual check-up", "Skin check", "Nutrition consultation"),
        "provider": ("Dr. Priya Shah", "Jordan Ellis, LMFT", "Dr. Samuel Ortiz", "Dr. Priya Shah", "Dr. Lena Park",
                     "Rosa Diaz, RD"),
        "date": ("2025-11-03", "2025-11-06", "2025-11-12", "2025-09-15", "2025-08-28", "2025-08-04"),
        "time": ("10:30", "17:00", "09:15", "11:00", "15:45", "08:30"),
        "visit": ("Video", "Video", "Phone", "Video", "Video", "Phone")}),
    ("meeting calendar_event", "", {
        "title": ("Weekly product sync", "Design review", "Quarterly planning", "Customer interview", "Team retro",
                  "Onboarding: new starters", "Budget review", "Marketing stand-up", "Vendor demo"),
        "date": ("2025-11-03", "2025-11-04", "2025-11-07", "2025-10-27", "2025-10-24", "2025-10-20",
                 "2025-11-10", "2025-11-11", "2025-11-13"),
        "time": ("10:00", "14:30", "16:00", "11:00", "15:00", "09:30", "13:00", "09:15", "14:00"),
        "host": ("Priya Shah", "Maya Chen", "Daniel Okafor", "Sam Lee", "Maya Chen", "Jordan Ellis",
                 "Daniel Okafor", "Priya Shah", "Sam Lee")}),
    ("event", "", {
        "name": ("Neighbourhood book swap", "Sunday park run", "Live jazz at the Harbor"),
        "date": ("2025-11-08", "2025-11-09", "2025-11-14"), "place": ("Central Library", "Riverside Park", "The Harbor"),
        "going": (34, 58, 120)}),
    ("template", "", {
        "name": ("Team stand-up", "Client call", "Workshop"), "minutes": (15, 45, 120),
        "description": ("Short daily check-in with the waiting room off.",
                        "Waiting room on and recording to the cloud.",
                        "Breakout rooms and polls turned on.")}),
    ("call", "", {
        "name": ("Maya Chen", "Daniel Okafor", "Family"), "direction": ("Incoming", "Missed", "Outgoing"),
        "when": ("Today, 09:41", "Yesterday, 18:20", "Monday, 20:05"), "length": ("12 min", "", "34 min"),
        "call_type": ("Voice call", "Video call", "Voice call"),
        "number": ("+1 503 555 0142", "+1 312 555 0199", "+1 212 555 0173")}),
    ("group", "", {
        "name": ("Family", "Weekend hikers", "Book club"), "members": (6, 14, 9),
        "text": ("See you all on Sunday!", "Trail map for Saturday is in the description.",
                 "Next month's pick is up for a vote.")}),
    # ---- people
    ("therapist counselor", "", {
        "name": ("Jordan Ellis, LMFT", "Dr. Amara Obi, PsyD", "Chris Novak, LCSW"),
        "specialty": ("Anxiety and stress", "Depression", "Relationships and family"),
        "rating": (4.8, 4.9, 4.7), "available": ("Thursday, 17:00", "Friday, 12:30", "Monday, 18:00"),
        "about": ("Helps adults manage anxiety and stress with practical, evidence-based tools.",
                  "Works with adults through depression, grief and life changes.",
                  "Supports couples and families through conflict and change.")}),
    ("provider doctor physician", "", {
        "name": ("Dr. Priya Shah", "Dr. Samuel Ortiz", "Dr. Lena Park"),
        "specialty": ("General medicine", "Allergy and immunology", "Dermatology"),
        "rating": (4.9, 4.7, 4.8), "available": ("Today, 16:30", "Tomorrow, 09:00", "Wednesday, 14:15"),
        "about": ("Board-certified family physician with 12 years of practice.",
                  "Treats allergies, asthma and hay fever in adults and children.",
                  "Skin, hair and nail conditions, from acne to eczema.")}),
    ("friend", "", {
        "name": ("Maya Chen", "Daniel Okafor", "Priya Shah", "Tom Becker", "Lucia Romero", "Kenji Watanabe"),
        "mutual_friends": (12, 5, 23, 8, 3, 14),
        "city": ("Portland", "Chicago", "New York", "Denver", "Austin", "Seattle")}),
    ("contact", "chat", {
        "name": ("Maya Chen", "Daniel Okafor", "Priya Shah"),
        "phone": ("+1 503 555 0142", "+1 312 555 0199", "+1 212 555 0173"),
        "about": ("Available", "At the gym", "Busy, text me"),
        "last_seen": ("Active now", "Active 5 min ago", "Active 1 hour ago"), "groups_in_common": (2, 1, 3)}),
    ("follower following_user user", "", {
        "name": ("Maya Chen", "Daniel Okafor", "Priya Shah", "Tom Becker", "Lucia Romero", "Kenji Watanabe"),
        "handle": ("@mayachen", "@dokafor", "@priyashah", "@tbecker", "@lucia_romero", "@kenjiw"),
        "bio": ("Designer. Coffee, maps and long walks.", "Building developer tools. Opinions are my own.",
                "Product at a small startup. Runner.", "Photographer in the mountains.",
                "Writing about food and cities.", "Engineer, climber, occasional baker.")}),
    ("member invitee contact customer", "", {
        "company": ("Northwind Design", "Harbor Coffee Co.", "Bright Pages Books"),
        "phone": ("+1 503 555 0142", "+1 312 555 0199", "+1 212 555 0173"),
        "name": ("Maya Chen", "Daniel Okafor", "Priya Shah"),
        "email": ("maya.chen@example.com", "daniel.okafor@example.com", "priya.shah@example.com"),
        "role": ("Designer", "Engineer", "Product manager"), "city": ("Portland", "Chicago", "New York")}),
    # ---- social and writing
    ("post article story", "blog", {
        "title": ("How we cut our build times in half", "The quiet power of a daily walk",
                  "A beginner's guide to sourdough", "What I wish I knew as a new manager",
                  "Designing for slow internet", "Ten years of running, ten lessons"),
        "author": ("Maya Chen", "Daniel Okafor", "Priya Shah", "Sam Lee", "Lucia Romero", "Tom Becker"),
        "reading_time": ("6 min read", "4 min read", "9 min read", "7 min read", "5 min read", "8 min read"),
        "claps": (1200, 845, 2300, 3100, 640, 1900)}),
    ("post tweet story", "", {
        "name": ("Maya Chen", "Daniel Okafor", "Priya Shah", "Tom Becker", "Lucia Romero", "Kenji Watanabe"),
        "text": ("Finally finished the trail we have been planning for months. Worth every step.",
                 "Our team just shipped dark mode. Thanks to everyone who sent feedback!",
                 "Trying a new sourdough recipe this weekend, wish me luck.",
                 "First snow on the peaks this morning. Winter is coming early this year.",
                 "The best tacos in town are at the tiny place behind the market. No debate.",
                 "Reminder: back up your photos. Learned that one the hard way."),
        "likes": (124, 58, 310, 87, 202, 45), "posted": ("2h", "5h", "1d", "3h", "8h", "2d")}),
    ("draft", "", {
        "title": ("Notes from a week without email", "What I learned from 100 interviews", "Untitled story"),
        "edited": ("2025-10-14", "2025-10-10", "2025-10-02"), "words": (820, 1450, 120)}),
    ("publication blog", "", {
        "name": ("Better Programming", "The Slow Life", "Kitchen Notes"),
        "description": ("Practical advice for working developers, from code review to career growth.",
                        "Essays on living well with less: slow mornings, long walks and fewer things.",
                        "Recipes and stories from home cooks, one kitchen at a time."),
        "followers": (184000, 42000, 9600)}),
    ("notification alert", "travel", {
        "name": ("New York to Barcelona", "Boston to London", "Chicago to Lisbon"),
        "price": (489.0, 412.0, 536.0), "dates": ("12 to 19 Dec", "3 to 10 Feb", "Any dates in March")}),
    ("notification alert", "", {
        "title": ("Maya Chen liked your post", "Daniel Okafor started following you",
                 "Priya Shah replied to your comment"),
        "when": ("2h", "5h", "1d")}),
    ("trend topic hashtag", "microblog", {
        "name": ("#ClimateWeek", "Champions League", "#BookTok"),
        "category": ("Trending in news", "Trending in sports", "Trending in books"),
        "posts": ("48.2K posts", "120K posts", "23.9K posts")}),
    ("question", "", {
        "title": ("What is the best way to learn a second language as an adult?",
                  "Is it worth buying an electric car in 2025?", "How do I start investing with a small budget?",
                  "How do I get better at public speaking?", "What should I see on a first trip to Japan?",
                  "How do I keep houseplants alive in winter?"),
        "details": ("I'm 35 and want to learn Spanish for work. Apps alone haven't worked for me.",
                    "I drive about 40 miles a day and can charge at home.",
                    "I can set aside about $100 a month and want something simple.",
                    "I freeze up in meetings, even with people I know well.",
                    "Ten days in April, flying into Tokyo, interested in food and temples.",
                    "My flat gets little light from November to February."),
        "topic": ("Languages", "Electric vehicles", "Personal finance", "Careers", "Travel", "Gardening"),
        "answers": (48, 112, 75, 33, 96, 21), "followers": (230, 540, 410, 180, 620, 95)}),
    ("answer reply comment", "", {
        "name": ("Maya Chen", "Daniel Okafor", "Priya Shah"),
        "body": ("Speak from day one, even badly: twenty minutes of conversation a day beats an hour of grammar.",
                 "If you can charge at home, running costs are far lower than petrol.",
                 "Start with a low-cost index fund and add a little every month."),
        "upvotes": (1200, 340, 890)}),
    ("topic", "", {
        "name": ("Personal finance", "Languages", "Electric vehicles"), "followers": (1200000, 860000, 310000),
        "questions": (48000, 21000, 9300)}),
    # ---- notes
    ("notebook", "", {
        "name": ("Work", "Personal", "Recipes"), "sections": (6, 4, 3), "updated": ("2025-10-14", "2025-10-11",
                                                                                   "2025-09-28")}),
    ("page note", "", {
        "title": ("Q4 planning notes", "Reading list", "Weekend shopping", "Trip ideas", "Interview questions",
                  "Recipe: lemon pasta"),
        "text": ("Goals, owners and dates for the last quarter of the year.",
                 "Books to read before the end of the year.", "Eggs, coffee beans, basil and lemons.",
                 "Lisbon, Porto, or a week on the coast in May.", "What does a good first month look like?",
                 "Spaghetti, lemon zest, parmesan, butter and black pepper."),
        "updated": ("2025-10-14", "2025-10-12", "2025-10-10", "2025-10-08", "2025-10-06", "2025-10-03")}),
    # ---- travel
    ("flight", "", {
        "name": ("New York to Barcelona, nonstop", "New York to Barcelona, 1 stop", "New York to Barcelona, overnight",
                 "New York to Barcelona via Lisbon", "New York to Barcelona via Paris", "New York to Barcelona via Rome"),
        "airline": ("Delta", "Lufthansa", "Iberia", "TAP Air Portugal", "Air France", "ITA Airways"),
        "departs": ("07:05", "09:40", "19:20", "17:55", "18:30", "16:45"),
        "arrives": ("20:35", "23:55", "09:10", "10:40", "11:25", "10:15"),
        "price": (489.0, 412.0, 455.0, 398.0, 436.0, 421.0)}),
    ("hotel stay", "", {
        "name": ("Hotel Arts Barcelona", "Casa Bonay", "Generator Barcelona"),
        "area": ("Port Olimpic", "Eixample", "Gracia"), "rating": (4.7, 4.6, 4.1), "price": (240.0, 165.0, 58.0)}),
    ("car rental", "", {
        "name": ("Volkswagen Golf or similar", "Fiat 500 or similar", "Toyota RAV4 or similar"),
        "supplier": ("Sixt", "Europcar", "Hertz"), "seats": (5, 4, 5), "price": (38.0, 29.0, 56.0)}),
    ("trip", "", {
        "name": ("Barcelona in December", "New York for New Year", "Lisbon weekend"),
        "dates": ("12 to 19 Dec", "29 Dec to 3 Jan", "14 to 16 Mar"), "travellers": (2, 2, 1)}),
    ("video", "", {
        "title": ("15-minute weeknight pasta", "Why is the sky blue?", "Full-body workout, no equipment"),
        "channel": ("Kitchen Table", "Curious Minds", "Move Daily"),
        "views": ("1.2M views", "640K views", "2.1M views"), "length": ("12:48", "8:05", "20:14"),
        "description": ("A creamy tomato pasta from pantry staples, ready in fifteen minutes.",
                        "Why the sky is blue by day and red at sunset, explained with a torch and a glass of milk.",
                        "Twenty minutes, no equipment: a full-body routine you can do in your living room.")}),
    ("plan", "", {
        "name": ("Primary care", "Mental health", "Nutrition"), "price": (0.0, 49.0, 29.0),
        "description": ("Visits with a doctor by video or phone, any time of day.",
                        "Weekly sessions with a licensed therapist.",
                        "Personal plans from a registered dietitian.")}),
    ("prescription medication", "", {
        "name": ("Amoxicillin 500 mg", "Cetirizine 10 mg", "Sertraline 50 mg"),
        "dosage": ("1 capsule three times a day", "1 tablet a day", "1 tablet each morning"),
        "refills": (0, 3, 5), "pharmacy": ("CVS Pharmacy, Harbor Road", "CVS Pharmacy, Harbor Road", "Walgreens, Main Street")}),
    ("condition", "", {
        "name": ("Seasonal allergies", "Migraine", "Back pain"),
        "description": ("Sneezing, itchy eyes and a runny nose when pollen is high.",
                        "Recurring headaches, often with sensitivity to light.",
                        "Pain or stiffness in the lower back, often after lifting.")}),
)


def _app_kinds(app: str) -> set[str]:
    text = app.lower().replace("_", " ")
    return {kind for kind, pattern in _APPS.items() if re.search(pattern, text)}


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith(("ss", "us")) else word


def _nouns(field: str) -> list[str]:
    """What a field's rows may be called, most specific first: `search_results_tracks` -> search_result_track,
    result_track, track; a last word that only says how rows are listed goes first (`conditions_list` ->
    condition, `cart_items` -> cart)."""
    words = [_singular(w) for w in field.lower().split("_") if w]
    out = ["_".join(words[i:]) for i in range(len(words))]
    if len(words) > 1 and words[-1] in _LISTING:
        out = ["_".join(words[i:-1]) for i in range(len(words) - 1)] + out
    return out


def row_kind(field: str, app: str) -> Rows:
    """The columns of the kind of row an array<object> field holds in an app named `app` ({} if none is known)."""
    kinds = _app_kinds(app)
    for name in _nouns(field):
        for nouns, where, columns in KINDS:
            if name in nouns.split() and (not where or where in kinds):
                return columns
    return {}


def _number(v: JSON) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class Samples:
    """The invented rows of one world's array<object> fields. Two fields of one kind (friends and suggested
    friends) take different rows: the second starts where the first's end."""

    def __init__(self, imp: Importer):
        self.app = imp.app
        self.fields = list(imp.data_fields)

    def _start(self, field: str) -> int:
        kind = row_kind(field, self.app)
        earlier = self.fields[:self.fields.index(field)] if field in self.fields else []
        return SAMPLE_ROWS * sum(row_kind(f, self.app) is kind for f in earlier)

    def cell(self, d: DataField, column: str, k: int) -> JSON:
        """Row k's (from 1) value of a column: the kind's; else, for a column the world sums, 10 * k; for a
        reference to another row (`question_id`), none; else the column's name and k (`Trigger 1`)."""
        values = row_kind(d.name, self.app).get(column)
        v = values[(self._start(d.name) + k - 1) % len(values)] if values else None
        if column in d.numbers:
            return v if _number(v) else 10 * k
        if v is not None or column.endswith("_id"):
            return v
        return f"{column.replace('_', ' ').capitalize()} {k}"

    def summed(self, d: DataField, column: str) -> int:
        """The sum of a column the world sums over the field's rows, a whole number (fsmc has no fractions); the
        column becomes one of numbers."""
        d.numbers.add(column)
        if column not in d.columns:
            d.columns.append(column)
        return round(sum(self.cell(d, column, k) for k in range(1, SAMPLE_ROWS + 1)))

    def table(self, d: DataField) -> ir.Table:
        """The field's table: its invented keys, the columns of its kind, then the columns the world names itself
        (what its appends write: `title_`, the importer's name for their `title`, is the kind's `title`)."""
        kind = list(row_kind(d.name, self.app))
        same = {fsmc_name(c): c for c in kind}
        columns = list(dict.fromkeys(["id", *kind, *(same.get(c, c) for c in d.columns)]))
        ids = d.ids()
        rows = [tuple(ids[k - 1] if c == "id" else self.cell(d, c, k) for c in columns)
                for k in range(1, SAMPLE_ROWS + 1)]
        types = ["num" if c in d.numbers else _type([r[i] for r in rows]) for i, c in enumerate(columns)]
        return ir.Table(name=d.name, key="id", columns=tuple(ir.Column(name=c, type=t) for c, t in
                                                             zip(columns, types, strict=True)), rows=tuple(rows))


def _type(values: list[JSON]) -> str:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return "bool"
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "int"
    return "num" if present and all(_number(v) for v in present) else "str"
